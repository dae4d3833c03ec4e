package policy

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/agentbox-dev/agentbox/internal/credheaders"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// This file holds the schema of the manifest's sections: which keys each
// mapping has and how each value is checked.

func (d *decoder) permissions(n *yaml.Node, where string) {
	p := &d.m.Permissions
	d.mapping(n, where, []field{
		{"filesystem", func(v *yaml.Node, w string) {
			d.mapping(v, w, []field{
				{"read", func(v *yaml.Node, w string) { p.Filesystem.Read = d.readList(v, w) }},
				{"write", func(v *yaml.Node, w string) { p.Filesystem.Write = d.writableRoots(v, w) }},
				{"deny", func(v *yaml.Node, w string) { p.Filesystem.Deny = d.paths(v, w) }},
				{"scratch", func(v *yaml.Node, w string) { p.Filesystem.Scratch = d.writablePaths(v, w) }},
				{"git_writes", func(v *yaml.Node, w string) { p.Filesystem.GitWrites = d.boolean(v, w) }},
			})
		}},
		{"network", func(v *yaml.Node, w string) {
			d.mapping(v, w, []field{
				{"allow", func(v *yaml.Node, w string) { p.Network.Allow, _ = d.hosts(v, w, false) }},
				{"deny", func(v *yaml.Node, w string) { p.Network.Deny, p.Network.DenyAll = d.hosts(v, w, true) }},
				{"unix_sockets", func(v *yaml.Node, w string) { p.Network.UnixSockets = d.boolean(v, w) }},
			})
		}},
		{"tools", func(v *yaml.Node, w string) {
			d.mapping(v, w, []field{
				{"allow", func(v *yaml.Node, w string) { p.Tools.Allow = d.toolGlobs(v, w) }},
				{"deny", func(v *yaml.Node, w string) { p.Tools.Deny = d.toolGlobs(v, w) }},
			})
		}},
		{"credentials", d.credentials},
	})
}

// readList decodes the read list. A list written empty (read: [], or read:
// with every item commented out) is refused: every other list written
// empty grants nothing, but an empty read list would mean the default
// policy, which reads everywhere but the denied paths.
func (d *decoder) readList(n *yaml.Node, where string) []PathRule {
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		d.errorf(n, "%s is empty, which would not mean \"read nothing\" but the default policy (read everywhere but the denied paths): list what the agent reads (the system's directories and the writable roots are always readable), or remove the key for the default", where)
		return nil
	}
	return d.paths(n, where)
}

// writablePaths decodes the write list: paths, none in a kernel
// filesystem (the sandbox has its own /proc and /dev, and no /sys).
func (d *decoder) writablePaths(n *yaml.Node, where string) []PathRule {
	rules := d.paths(n, where)
	out := rules[:0]
	for _, r := range rules {
		if k, ok := sandbox.KernelFilesystem(r.Path); ok {
			d.errorAt(r.Pos.Line, r.Pos.Col, "%s: %s", where, sandbox.KernelFilesystemError(r.Raw, r.Path, k))
			continue
		}
		out = append(out, r)
	}
	return out
}

// writableRoots decodes the write list: writable paths, "/" not among
// them (CheckWritableRoot).
func (d *decoder) writableRoots(n *yaml.Node, where string) []PathRule {
	rules := d.writablePaths(n, where)
	out := rules[:0]
	for _, r := range rules {
		if err := CheckWritableRoot(r.Path); err != nil {
			d.errorAt(r.Pos.Line, r.Pos.Col, "%s: %v", where, err)
			continue
		}
		out = append(out, r)
	}
	return out
}

func (d *decoder) paths(n *yaml.Node, where string) []PathRule {
	var out []PathRule
	seen := map[string]int{}
	d.list(n, where, func(item *yaml.Node, w string) {
		pr, ok := d.path(item, w)
		if !ok {
			return
		}
		if line, dup := seen[pr.Path]; dup {
			d.warnf(pr.Pos, "%s: %s is listed twice (also at line %d)", where, pr.Path, line)
			return
		}
		seen[pr.Path] = pr.Pos.Line
		out = append(out, pr)
	})
	return out
}

// hosts decodes a list of host patterns. "*" is only accepted in a deny list,
// where it is reported through the second result.
func (d *decoder) hosts(n *yaml.Node, where string, denyList bool) ([]HostPattern, bool) {
	var out []HostPattern
	var all bool
	d.strList(n, where, "a host pattern such as api.example.com or \"*.example.com\"", func(s string, item *yaml.Node, w string) {
		hp, err := ParseHostPattern(s)
		if err != nil {
			d.errorf(item, "%s: %v", w, err)
			return
		}
		hp.Pos = posOf(item)
		if hp.Any {
			if !denyList {
				d.errorf(item, "%s: %q would allow every host; list the hosts the agent needs", w, s)
				return
			}
			if hp.Port == PortDefault || hp.Port == PortAny {
				// "*": everything not allowed. "*:25" stays a rule.
				all = true
				return
			}
		}
		if denyList {
			out = append(out, hp)
			return
		}
		if hp.Addr.IsValid() && neverReachable(hp.Addr) {
			d.warnf(hp.Pos, "%s: %s is a private, loopback, link-local or metadata address; the egress proxy never connects to it, whatever the allow list says", w, hp.Addr)
		}
		out = append(out, hp)
	})
	return out, all
}

// toolGlobs decodes a list of tool-name globs (path.Match syntax).
func (d *decoder) toolGlobs(n *yaml.Node, where string) []string {
	var out []string
	d.strList(n, where, "a tool name or glob such as read_file or \"list_*\"", func(s string, item *yaml.Node, w string) {
		if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
			d.errorf(item, "%s: tool pattern %q contains whitespace or a control character", w, s)
			return
		}
		if _, err := path.Match(s, ""); err != nil {
			d.errorf(item, "%s: tool pattern %q is malformed (check its [ ] brackets and \\ escapes)", w, s)
			return
		}
		out = append(out, s)
	})
	return out
}

func (d *decoder) credentials(n *yaml.Node, where string) {
	seen := map[string]int{}
	d.list(n, where, func(item *yaml.Node, w string) {
		c, ok := d.credential(item, w)
		if !ok {
			return
		}
		if line, dup := seen[c.Name]; dup {
			d.errorf(item, "%s: credential %s is listed twice (also at line %d); keep one", w, c.Name, line)
			return
		}
		seen[c.Name] = c.Pos.Line
		d.m.Permissions.Credentials = append(d.m.Permissions.Credentials, c)
	})
}

// credential decodes the short form NAME or the long form
// {name: NAME, hosts: [...], header: HEADER}.
func (d *decoder) credential(n *yaml.Node, where string) (Credential, bool) {
	c := Credential{Pos: posOf(n)}
	checkName := func(v *yaml.Node, w string) bool {
		s, ok := d.str(v, w, "a credential name such as ANTHROPIC_API_KEY")
		if !ok {
			return false
		}
		if err := CheckCredentialName(s); err != nil {
			d.errorf(v, "%s: %v", w, err)
			return false
		}
		c.Name = s
		return true
	}
	if !d.plain(n, where) {
		return c, false
	}
	if n.Kind != yaml.MappingNode {
		return c, checkName(n, where)
	}
	var named, valid = false, true
	d.mapping(n, where, []field{
		{"name", func(v *yaml.Node, w string) { named = true; valid = checkName(v, w) && valid }},
		{"hosts", func(v *yaml.Node, w string) {
			before := len(d.errs)
			c.Hosts, _ = d.hosts(v, w, false)
			valid = valid && len(d.errs) == before
		}},
		{"header", func(v *yaml.Node, w string) {
			s, ok := d.str(v, w, "an HTTP header name such as Authorization")
			if ok {
				if err := CheckCredentialHeader(s); err != nil {
					d.errorf(v, "%s: %v", w, err)
					ok = false
				}
			}
			c.Header, valid = s, valid && ok
		}},
	})
	if !named {
		d.errorf(n, "%s: missing required key \"name\" (e.g. name: GITHUB_TOKEN)", where)
		return c, false
	}
	return c, valid
}

func (d *decoder) limits(n *yaml.Node, where string) {
	l := &d.m.Limits
	intField := func(key string, dst *int64, limit int64, absent string) field {
		return field{key, func(v *yaml.Node, w string) {
			if x, ok := d.positiveInt(v, w, limit, absent); ok {
				*dst = x
			}
		}}
	}
	d.mapping(n, where, []field{
		intField("max_tokens", &l.MaxTokens, math.MaxInt64, "no limit"),
		{"max_duration", d.duration(&l.MaxDuration)},
		intField("max_memory_mb", &l.MaxMemoryMB, maxMemoryMB, fmt.Sprintf("the default of %d MiB", DefaultMaxMemoryMB)),
		intField("max_requests", &l.MaxRequests, math.MaxInt64, "no limit"),
		intField("max_tool_calls", &l.MaxToolCalls, math.MaxInt64, "no limit"),
	})
}

// duration returns a field setter that decodes a time.ParseDuration string
// greater than zero into dst.
func (d *decoder) duration(dst *time.Duration) func(*yaml.Node, string) {
	return func(n *yaml.Node, where string) {
		if !d.plain(n, where) {
			return
		}
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			if strings.HasPrefix(n.Value, "-") || strings.Trim(n.Value, "0._+") == "" {
				d.errorf(n, "%s must be greater than 0, not %s; remove the key for no limit", where, n.Value)
				return
			}
			d.errorf(n, "%s: %s has no unit; write e.g. %ss or %sm", where, n.Value, n.Value, n.Value)
			return
		}
		s, ok := d.str(n, where, "a duration such as 30m, 90s or 1h30m")
		if !ok {
			return
		}
		v, err := time.ParseDuration(s)
		if err != nil && durationRE().MatchString(s) {
			d.errorf(n, "%s: %s is too long (at most %dh, about 292 years); remove the key for no limit", where, s, math.MaxInt64/int64(time.Hour))
			return
		}
		if err != nil {
			d.errorf(n, "%s: %q is not a duration; write e.g. 30m, 90s or 1h30m (units: ns, us, ms, s, m, h)", where, s)
			return
		}
		if v <= 0 {
			d.errorf(n, "%s must be greater than 0, not %s; remove the key for no limit", where, s)
			return
		}
		*dst = v
	}
}

// durationRE matches what time.ParseDuration reads, whatever the size:
// a value it refuses that matches is too long.
var durationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\+?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)
})

func (d *decoder) audit(n *yaml.Node, where string) {
	a := &d.m.Audit
	d.mapping(n, where, []field{
		{"log_level", func(v *yaml.Node, w string) {
			s, ok := d.str(v, w, "one of "+strings.Join(logLevelNames(), ", "))
			if !ok {
				return
			}
			lv, err := ParseLogLevel(s)
			if err != nil {
				d.errorf(v, "%s: %v", w, err)
				return
			}
			a.LogLevel = lv
		}},
		{"alert_on", func(v *yaml.Node, w string) {
			d.strList(v, w, "an event name such as network_deny", func(s string, item *yaml.Node, w string) {
				if err := CheckAlertKind(s); err != nil {
					d.errorf(item, "%s: %v", w, err)
					return
				}
				a.AlertOn = append(a.AlertOn, s)
			})
		}},
		{"log_path", func(v *yaml.Node, w string) {
			if pr, ok := d.path(v, w); ok {
				a.LogPath, a.LogPathPos = pr.Path, pr.Pos
			}
		}},
	})
}

// crossChecks runs the checks that need the whole manifest.
func (d *decoder) crossChecks() {
	p := &d.m.Permissions
	// Deny wins: say so when it silently takes away a listed read or write.
	for _, list := range []struct {
		name  string
		rules []PathRule
	}{{"read", p.Filesystem.Read}, {"write", p.Filesystem.Write}} {
		for _, r := range list.rules {
			for _, deny := range p.Filesystem.Deny {
				if paths.Within(r.Path, deny.Path) {
					d.warnf(r.Pos, "permissions.filesystem.%s: %s is under denied %s (line %d); deny wins, so it is not %s",
						list.name, r.Path, deny.Path, deny.Pos.Line, map[string]string{"read": "readable", "write": "writable"}[list.name])
					break
				}
			}
		}
	}
	for _, a := range p.Network.Allow {
		for _, deny := range p.Network.Deny {
			// A deny entry without a port denies every port.
			every := deny
			if every.Port == PortDefault {
				every.Port = PortAny
			}
			if every.Covers(a) {
				d.warnf(a.Pos, "permissions.network.allow: %s is also matched by deny %s (line %d); deny wins, so it is not reachable",
					a, deny, deny.Pos.Line)
				break
			}
		}
	}
	// A credential's hosts narrow the allowed hosts; they cannot widen them.
	for _, c := range p.Credentials {
		for _, h := range c.Hosts {
			if !anyCovers(p.Network.Allow, h) {
				d.errorAt(h.Pos.Line, h.Pos.Col, "credential %s is bound to %s, which permissions.network.allow does not allow; add it there or remove it here", c.Name, h)
			}
		}
	}
	for _, c := range p.Credentials {
		if len(c.Hosts) > 0 {
			continue
		}
		if hosts, byName := CredentialHosts(c.Name, p.Network.Allow); !byName && len(hosts) > 1 {
			d.warnf(c.Pos, "permissions.credentials: %s names no hosts, so every allowed host may receive it (%s); bind it with {name: %s, hosts: [...]}",
				c.Name, joinHosts(hosts), c.Name)
		}
	}
	if len(p.Credentials) > 0 && len(p.Network.Allow) == 0 {
		c := p.Credentials[0]
		d.warnf(c.Pos, "permissions.credentials: no host is allowed (permissions.network.allow is empty), so no request can carry %s", c.Name)
	}
}

func anyCovers(list []HostPattern, h HostPattern) bool {
	for _, o := range list {
		if o.Covers(h) {
			return true
		}
	}
	return false
}

// httpTokenChars are the characters of an HTTP field name (RFC 9110 token).
const httpTokenChars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// CheckCredentialHeader reports whether s may be the header a credential's
// value is injected into: an HTTP header name that neither frames or routes
// the request (see credheaders.Framing) nor is one that servers store and
// send back (Idempotency-Key and the like, see credheaders.Stored), where
// the value would come back to the sandbox; _ is read as - in both.
func CheckCredentialHeader(s string) error {
	for _, r := range s {
		if !strings.ContainsRune(httpTokenChars, r) {
			return fmt.Errorf("%q is not an HTTP header name (letters, digits and -, e.g. Authorization or X-Api-Key)", s)
		}
	}
	if credheaders.IsFraming(s) {
		return fmt.Errorf("header %s frames or routes the request and cannot carry a credential; use e.g. Authorization or X-Api-Key", s)
	}
	if credheaders.IsStored(s) {
		return fmt.Errorf("header %s is one servers store and send back (in responses, pages or webhook events), so the value would reach the sandbox; use the header the service reads the credential from, e.g. Authorization or X-Api-Key", s)
	}
	return nil
}
