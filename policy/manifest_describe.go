package policy

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Describe writes a one-screen human summary of what the manifest lets the
// agent do: runtime, paths, hosts, tools, credentials (names only), limits
// and audit settings. Unset sections say what applies instead.
func (m *Manifest) Describe(w io.Writer) error {
	var b strings.Builder
	line := func(label, text string) { fmt.Fprintf(&b, "%-13s%s\n", label, text) }
	more := func(text string) { line("", text) }

	agent := m.Name
	if m.Version != "" {
		agent += " " + m.Version
	}
	line("Agent", agent)
	if m.Description != "" {
		more(oneLine(m.Description))
	}
	line("Runtime", string(m.Runtime))
	line("Manifest", m.File+" ("+shortDigest(m.Digest)+")")

	fsp := m.Permissions.Filesystem
	line("Filesystem", "deny wins over read and write; agentbox's built-in deny set always applies")
	pathList(line, "  read", fsp.Read, "everywhere but the denied paths (default policy)")
	pathList(line, "  write", fsp.Write, "nowhere (a private /tmp only)")
	pathList(line, "  deny", fsp.Deny, "the built-in deny set only")
	const caches = "the home's tool caches: writable, every change discarded when the agent ends"
	if len(fsp.Scratch) == 0 {
		line("  scratch", caches)
	} else {
		pathList(line, "  scratch", fsp.Scratch, "")
		more("and " + caches)
	}
	if fsp.GitWrites {
		line("  .git", "writable in the writable roots (commit, checkout); hooks and git's configuration stay read-only")
	} else {
		line("  .git", "read-only in the writable roots (git_writes: true lets the agent commit)")
	}

	net := m.Permissions.Network
	line("Network", "through the egress proxy only; deny wins over allow")
	if len(net.Allow) == 0 {
		line("  allow", "no host: the agent has no network access")
	} else {
		line("  allow", joinHosts(net.Allow))
	}
	deny := joinHosts(net.Deny)
	switch {
	case deny == "":
		deny = "everything not allowed"
	default:
		deny += "; and everything not allowed"
	}
	line("  deny", deny)
	if net.UnixSockets {
		line("  unix", "sockets allowed: a host service's socket in a readable directory is reachable (confined to the writable roots and /tmp on Landlock ABI 9 and later)")
	} else {
		line("  unix", "no sockets but socketpair (unix_sockets: true allows them)")
	}

	tools := m.Permissions.Tools
	line("Tools", "deny wins over allow")
	line("  allow", orNone(strings.Join(tools.Allow, ", ")))
	line("  deny", orNone(strings.Join(tools.Deny, ", ")))

	if len(m.Permissions.Credentials) == 0 {
		line("Credentials", "none")
	} else {
		line("Credentials", "from the vault; the agent sees placeholders, the proxy injects the values")
		for _, c := range m.Permissions.Credentials {
			to := joinHosts(c.Hosts)
			if len(c.Hosts) == 0 {
				hosts, byName := CredentialHosts(c.Name, m.Permissions.Network.Allow)
				switch {
				case byName:
					to = joinHosts(hosts) + " (by its name)"
				case len(hosts) > 0:
					to = "every allowed host"
				default:
					to = "no host"
				}
			}
			if c.Header != "" {
				to += ", header " + c.Header
			} else {
				to += ", Authorization or a key or token header"
			}
			more(c.Name + " → " + to)
		}
	}

	l := m.Limits
	line("Limits", strings.Join([]string{
		"tokens " + intOrNone(l.MaxTokens),
		"duration " + durationOrNone(l.MaxDuration),
		"memory " + memOrNone(l.MaxMemoryMB),
	}, " · "))
	more(strings.Join([]string{
		"requests " + intOrNone(l.MaxRequests),
		"tool calls " + intOrNone(l.MaxToolCalls),
	}, " · "))
	more(fmt.Sprintf("processes %d · open files %d (the same for every run)", DefaultMaxProcesses, DefaultMaxOpenFiles))

	a := m.Audit
	line("Audit", "level "+string(a.LogLevel)+" · alerts on "+orNone(strings.Join(a.AlertOn, ", ")))
	if a.LogPath != "" {
		more("log " + a.LogPath)
	} else {
		more("log at the runner's default location")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pathList(line func(string, string), label string, rules []PathRule, none string) {
	if len(rules) == 0 {
		line(label, none)
		return
	}
	for i, r := range rules {
		text := r.Path
		if r.Raw != r.Path {
			text += "  (" + r.Raw + ")"
		}
		if i > 0 {
			label = ""
		}
		line(label, text)
	}
}

func joinHosts(list []HostPattern) string {
	s := make([]string, len(list))
	for i, h := range list {
		s[i] = h.String()
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none listed"
	}
	return s
}

func intOrNone(n int64) string {
	if n == 0 {
		return "no limit"
	}
	return fmt.Sprint(n)
}

func memOrNone(mb int64) string {
	if mb == 0 {
		return fmt.Sprintf("%d MiB (the default)", DefaultMaxMemoryMB)
	}
	return fmt.Sprintf("%d MiB", mb)
}

func durationOrNone(d time.Duration) string {
	if d == 0 {
		return "no limit"
	}
	return FormatDuration(d)
}

// FormatDuration prints d without the zero units time.Duration.String adds:
// 30m rather than 30m0s, 1h rather than 1h0m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12] + "…"
	}
	return d
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}

// manifestJSON is the machine-readable form of a Manifest.
type manifestJSON struct {
	File        string `json:"file"`
	Dir         string `json:"dir"`
	Digest      string `json:"digest"`
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Runtime     string `json:"runtime"`
	Permissions struct {
		Filesystem struct {
			Read      []pathJSON `json:"read"`
			Write     []pathJSON `json:"write"`
			Deny      []pathJSON `json:"deny"`
			Scratch   []pathJSON `json:"scratch"`
			GitWrites bool       `json:"git_writes"`
		} `json:"filesystem"`
		Network struct {
			Allow       []string `json:"allow"`
			Deny        []string `json:"deny"`
			DenyAll     bool     `json:"deny_all"`
			UnixSockets bool     `json:"unix_sockets"`
		} `json:"network"`
		Tools struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"tools"`
		Credentials []credentialJSON `json:"credentials"`
	} `json:"permissions"`
	Limits struct {
		MaxTokens     int64  `json:"max_tokens,omitempty"`
		MaxDuration   string `json:"max_duration,omitempty"`
		MaxDurationMS int64  `json:"max_duration_ms,omitempty"`
		MaxMemoryMB   int64  `json:"max_memory_mb,omitempty"`
		MaxRequests   int64  `json:"max_requests,omitempty"`
		MaxToolCalls  int64  `json:"max_tool_calls,omitempty"`
	} `json:"limits"`
	Audit struct {
		LogLevel string   `json:"log_level"`
		AlertOn  []string `json:"alert_on"`
		LogPath  string   `json:"log_path,omitempty"`
	} `json:"audit"`
}

type pathJSON struct {
	Raw  string `json:"raw"`
	Path string `json:"path"`
}

type credentialJSON struct {
	Name   string   `json:"name"`
	Hosts  []string `json:"hosts"`
	Header string   `json:"header,omitempty"`
}

// MarshalJSON encodes the manifest in its normalised form: absolute paths,
// canonical host patterns, durations as Go duration strings (and
// milliseconds), lists never null. Unset limits are omitted.
func (m *Manifest) MarshalJSON() ([]byte, error) {
	var j manifestJSON
	j.File, j.Dir, j.Digest = m.File, m.Dir, m.Digest
	j.Name, j.Version, j.Description, j.Runtime = m.Name, m.Version, m.Description, string(m.Runtime)
	p := &j.Permissions
	fsp := m.Permissions.Filesystem
	p.Filesystem.Read, p.Filesystem.Write, p.Filesystem.Deny = pathsJSON(fsp.Read), pathsJSON(fsp.Write), pathsJSON(fsp.Deny)
	p.Network.Allow, p.Network.Deny = hostsJSON(m.Permissions.Network.Allow), hostsJSON(m.Permissions.Network.Deny)
	p.Filesystem.Scratch = pathsJSON(fsp.Scratch)
	p.Filesystem.GitWrites = fsp.GitWrites
	p.Network.DenyAll = m.Permissions.Network.DenyAll
	p.Network.UnixSockets = m.Permissions.Network.UnixSockets
	p.Tools.Allow = append([]string{}, m.Permissions.Tools.Allow...)
	p.Tools.Deny = append([]string{}, m.Permissions.Tools.Deny...)
	p.Credentials = []credentialJSON{}
	for _, c := range m.Permissions.Credentials {
		p.Credentials = append(p.Credentials, credentialJSON{Name: c.Name, Hosts: hostsJSON(c.Hosts), Header: c.Header})
	}
	l := m.Limits
	j.Limits.MaxTokens, j.Limits.MaxMemoryMB = l.MaxTokens, l.MaxMemoryMB
	j.Limits.MaxRequests, j.Limits.MaxToolCalls = l.MaxRequests, l.MaxToolCalls
	if l.MaxDuration > 0 {
		j.Limits.MaxDuration, j.Limits.MaxDurationMS = FormatDuration(l.MaxDuration), l.MaxDuration.Milliseconds()
	}
	j.Audit.LogLevel, j.Audit.LogPath = string(m.Audit.LogLevel), m.Audit.LogPath
	j.Audit.AlertOn = append([]string{}, m.Audit.AlertOn...)
	return json.Marshal(j)
}

func pathsJSON(rules []PathRule) []pathJSON {
	out := make([]pathJSON, len(rules))
	for i, r := range rules {
		out[i] = pathJSON{Raw: r.Raw, Path: r.Path}
	}
	return out
}

func hostsJSON(list []HostPattern) []string {
	out := make([]string, len(list))
	for i, h := range list {
		out[i] = h.String()
	}
	return out
}
