package supervise

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
)

// ErrRuntimeUnavailable is matched (errors.Is) by a *RuntimeError: the
// manifest names a runtime this agentbox cannot run. The CLI exits 125.
var ErrRuntimeUnavailable = errors.New("runtime not available")

// ErrNoVault refuses a manifest that declares credentials when no vault
// was opened to give their values.
var ErrNoVault = errors.New("the manifest declares credentials, but no vault is open for their values (set AGENTBOX_VAULT_PASSPHRASE or pass --passphrase-file)")

// RuntimeError refuses a manifest whose runtime is not built yet. agentbox
// never falls back to another runtime silently.
type RuntimeError struct {
	File    string
	Runtime policy.Runtime
}

func (e *RuntimeError) Error() string {
	return fmt.Sprintf("%s: runtime %q is not available in this agentbox (only %q is built so far); set runtime: %s or remove the key",
		e.File, e.Runtime, policy.RuntimeNative, policy.RuntimeNative)
}

// Unwrap returns ErrRuntimeUnavailable.
func (e *RuntimeError) Unwrap() error { return ErrRuntimeUnavailable }

// Compile turns a manifest into the library's Config, so that an agent run
// from a manifest goes through the same enforcement as every library call.
// resolved holds the manifest's filesystem rules with symlinks resolved
// (Manifest.Resolve, called when the agent starts).
//
//   - permissions.filesystem.read → AllowRead (empty: read everywhere but
//     the deny set) and write → WritableRoots, as the manifest names them
//     (each call resolves them and refuses a planted link); deny → DenyRead,
//     resolved and as named, added to DefaultDenyRead; deny wins over read
//     and write.
//   - permissions.network allow/deny → AllowedDomains/DeniedDomains in the
//     filtered mode ("*" in deny: everything not allowed).
//   - limits.max_memory_mb → ResourceLimits.MaxMemoryBytes (else the
//     default 2 GiB), with CountedMemoryOnly (see memoryWatch).
//   - permissions.credentials → Credentials, their values from creds (the
//     vault); a manifest with credentials and no provider is refused.
//   - runtime: native only; anything else is a *RuntimeError.
//
// The Config starts cold (one agent per Manager). The run adds its own audit
// log and agentbox's state directory to DenyRead (see Start).
func Compile(m *policy.Manifest, resolved policy.ResolvedPaths, creds agentbox.CredentialProvider) (agentbox.Config, error) {
	if m == nil {
		return agentbox.Config{}, errors.New("supervise: nil manifest")
	}
	if m.Runtime != "" && m.Runtime != policy.RuntimeNative {
		return agentbox.Config{}, &RuntimeError{File: m.File, Runtime: m.Runtime}
	}
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	fs := &cfg.Filesystem
	// Read and write paths go in as the manifest names them: each call
	// resolves them again and refuses one that a planted link redirects.
	fs.AllowRead = rulePaths(m.Permissions.Filesystem.Read)
	fs.WritableRoots = rulePaths(m.Permissions.Filesystem.Write)
	fs.DenyRead = pruneNested(appendUnique(fs.DenyRead, resolved.Deny...))
	fs.Scratch = append(fs.Scratch, rulePaths(m.Permissions.Filesystem.Scratch)...)
	fs.AllowGitWrites = m.Permissions.Filesystem.GitWrites

	cfg.Network.Mode = agentbox.NetworkFiltered
	cfg.Network.AllowUnixSockets = m.Permissions.Network.UnixSockets
	for _, h := range m.Permissions.Network.Allow {
		cfg.Network.AllowedDomains = append(cfg.Network.AllowedDomains, h.String())
	}
	for _, h := range m.Permissions.Network.Deny {
		cfg.Network.DeniedDomains = append(cfg.Network.DeniedDomains, h.String())
	}
	if m.Permissions.Network.DenyAll {
		cfg.Network.DeniedDomains = append(cfg.Network.DeniedDomains, "*")
	}
	if b := m.Limits.MaxMemoryBytes(); b > 0 {
		cfg.ResourceLimits.MaxMemoryBytes = b
	}
	// The monitor that enforces the limit without a cgroup sums what the
	// tree holds: what it cannot count is refused.
	cfg.ResourceLimits.CountedMemoryOnly = true
	if len(m.Permissions.Credentials) > 0 {
		if creds == nil {
			return agentbox.Config{}, fmt.Errorf("%s: %w", m.File, ErrNoVault)
		}
		cfg.CredentialProvider = creds
		for _, c := range m.Permissions.Credentials {
			cr := agentbox.Credential{Name: c.Name, Header: c.Header}
			for _, h := range c.Hosts {
				cr.Hosts = append(cr.Hosts, h.String())
			}
			cfg.Credentials = append(cfg.Credentials, cr)
		}
	}
	if err := cfg.Validate(); err != nil {
		return agentbox.Config{}, fmt.Errorf("%s: %w", m.File, err)
	}
	return cfg, nil
}

// Unenforced lists what the manifest declares that this agentbox carries
// into the run but does not enforce yet, each as "key (value)". The run
// prints them in one warning line and logs them with agent_start.
func Unenforced(m *policy.Manifest) []string {
	var out []string
	l := m.Limits
	for _, x := range []struct {
		key string
		v   int64
	}{{"limits.max_tokens", l.MaxTokens}, {"limits.max_requests", l.MaxRequests}, {"limits.max_tool_calls", l.MaxToolCalls}} {
		if x.v > 0 {
			out = append(out, fmt.Sprintf("%s (%d)", x.key, x.v))
		}
	}
	if t := m.Permissions.Tools; len(t.Allow)+len(t.Deny) > 0 {
		out = append(out, "permissions.tools")
	}
	for _, name := range m.Audit.AlertOn {
		if why := neverRaised(m, name); why != "" {
			out = append(out, fmt.Sprintf("audit.alert_on %s (never raised: %s)", name, why))
		}
	}
	return out
}

// alertNeeds are the alerts raised only with a limit or a permission this
// run enforces: unenforced says it is not enforced yet; otherwise the
// alert needs the manifest to set it (set).
var alertNeeds = []struct {
	prefix, key string
	unenforced  bool
	set         func(*policy.Manifest) bool
}{
	{"token_budget_", "limits.max_tokens", true, nil},
	{"request_budget_", "limits.max_requests", true, nil},
	{"tool_call_budget_", "limits.max_tool_calls", true, nil},
	{"tool_deny", "permissions.tools", true, nil},
	{"duration_budget_", "limits.max_duration", false, func(m *policy.Manifest) bool { return m.Limits.MaxDuration > 0 }},
}

// neverRaised says why nothing can raise the alert name in a run of m; ""
// where something can (red-team round 59: alerts accepted and silently
// dead).
func neverRaised(m *policy.Manifest, name string) string {
	for _, n := range alertNeeds {
		switch {
		case !strings.HasPrefix(name, n.prefix):
		case n.unenforced:
			return n.key + " is not enforced yet"
		case !n.set(m):
			return "the manifest sets no " + n.key
		}
	}
	return ""
}

func appendUnique(list []string, more ...string) []string {
	seen := make(map[string]bool, len(list)+len(more))
	for _, p := range list {
		seen[p] = true
	}
	for _, p := range more {
		if p != "" && !seen[p] {
			seen[p] = true
			list = append(list, p)
		}
	}
	return list
}

// pruneNested drops deny paths that lie under another denied directory:
// the directory's mask covers them already, and every mask is a mount the
// sandbox builds and the kernel tears down. A parent that is a symlink does
// not count: the sandbox does not mask symlinks themselves.
func pruneNested(list []string) []string {
	var dirs []string
	for _, p := range list {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	out := list[:0:0]
	for _, p := range list {
		nested := false
		for _, d := range dirs {
			if p != d && paths.Within(p, d) {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, p)
		}
	}
	return out
}

// rulePaths returns the (absolute, clean) paths of rules.
func rulePaths(rules []policy.PathRule) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, r.Path)
	}
	return out
}
