package agentbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/internal/credpaths"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// NetworkMode says what network a sandboxed command gets. It marshals to
// JSON as "blocked", "filtered" or "allowed".
type NetworkMode = sandbox.NetworkMode

// The network modes.
const (
	// NetworkFiltered: a private network namespace whose only way out is the
	// egress proxy, which applies the domain allow and deny lists. The default.
	NetworkFiltered = sandbox.NetworkFiltered
	// NetworkBlocked: a private network namespace with loopback only.
	NetworkBlocked = sandbox.NetworkBlocked
	// NetworkAllowed: the host's network; every other layer stays on.
	NetworkAllowed = sandbox.NetworkAllowed
)

// NetworkDecision is one verdict of the egress proxy.
type NetworkDecision = egress.Decision

// FallbackPolicy says what happens when a layer the policy needs is not
// available on this machine.
type FallbackPolicy string

const (
	// FallbackStrict refuses to run (the CLI exits 125) and says which layer
	// is missing. The default.
	FallbackStrict FallbackPolicy = "strict"
	// FallbackWarn runs with the layers that are available, logs a warning and
	// lists what was applied in ExecResult.Layers.
	FallbackWarn FallbackPolicy = "warn"
)

// Config is the policy of a Manager. Start from DefaultConfig, CIConfig or
// DevelopmentConfig (decode a stored Config into DefaultConfig()): a Config
// built from nothing, which would have no deny list and no limits, is
// refused by Validate and NewManager with ErrConfigInvalid.
type Config struct {
	Filesystem     FilesystemConfig `json:"filesystem"`
	Network        NetworkConfig    `json:"network"`
	ResourceLimits ResourceLimits   `json:"resource_limits"`
	// Shell runs the command strings given to Exec, as Shell -c STRING.
	Shell string `json:"shell"`
	// MaxOutputBytes bounds what Exec captures of stdout and of stderr (each);
	// the rest is discarded and ExecResult.Truncated set. 0 means the default.
	MaxOutputBytes int64 `json:"max_output_bytes"`
	// FallbackPolicy: "" means FallbackStrict.
	FallbackPolicy FallbackPolicy `json:"fallback_policy"`
	// Logger receives agentbox's own log records; nil discards them.
	Logger *slog.Logger `json:"-"`
	// Classifier judges every command before it runs; nil means the built-in
	// rules (classify.Default). Classification never skips the sandbox.
	Classifier Classifier `json:"-"`
	// ApprovalCallback is asked about escalated commands; without one they
	// are refused with an *EscalatedCommandError.
	ApprovalCallback ApprovalCallback `json:"-"`
	// ApprovalCache remembers ApprovalAlways answers.
	ApprovalCache ApprovalCache `json:"-"`
	// Credentials are secrets commands use without seeing them (see
	// Credential); they need the filtered network and a CredentialProvider.
	Credentials []Credential `json:"credentials,omitempty"`
	// CredentialProvider gives the credentials' real values, e.g. an open
	// *vault.Vault.
	CredentialProvider CredentialProvider `json:"-"`
	// ColdStart starts every sandbox when its command comes. Otherwise the
	// Manager keeps one sandbox started ahead of need, which takes namespace
	// creation and process start-up off each command's path; one-shot
	// programs (the CLI) set ColdStart so as not to start a spare for nothing.
	ColdStart bool `json:"cold_start,omitempty"`
	// WarmFirst, with ColdStart, starts the sandbox of the Manager's first
	// command at NewManager, so that it starts while the program prepares
	// the command, and no spare after it: a one-shot program (the CLI)
	// gains the start-up without the waste. Without ColdStart a sandbox is
	// always started ahead, and WarmFirst changes nothing.
	WarmFirst bool `json:"warm_first,omitempty"`

	// profiled records that the Config started from a profile: the zero
	// Config, which has no deny list and no limits, is refused rather than
	// run as a policy nobody chose. (Decode a Config into DefaultConfig().)
	profiled bool
}

// FilesystemConfig is the filesystem policy. Every path must be absolute;
// symlinks are resolved when a command starts. Deny wins over read and write.
type FilesystemConfig struct {
	// WritableRoots may be written (and read); nothing else may.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// DenyWrite stay read-only even inside a writable root.
	DenyWrite []string `json:"deny_write,omitempty"`
	// DenyRead are neither readable nor writable.
	DenyRead []string `json:"deny_read,omitempty"`
	// Scratch may be written as if they were writable roots, but every
	// change is discarded when the command ends: an overlay shows the
	// host's directory with a private layer above it. DefaultConfig lists
	// the home's tool caches (DefaultScratch). Missing directories, denied
	// ones, and ones inside a writable root are left as they are; DenyRead
	// still applies inside. The reduced tier, which cannot mount, leaves
	// them read-only.
	Scratch []string `json:"scratch,omitempty"`
	// AllowRead, when not empty, restricts reads to these paths, the writable
	// roots and the system directories programs need (/usr, /etc, /lib, ...).
	AllowRead []string `json:"allow_read,omitempty"`
	// AllowGitWrites lets commands write inside .git directories of writable
	// roots (commit, fetch, checkout). By default .git is read-only: files a
	// command plants there (a hook, a config with core.fsmonitor, a commondir
	// pointing at a directory it controls) make the host's git run code. With
	// AllowGitWrites, .git/hooks and .git/config stay read-only, but a new
	// file such as .git/commondir cannot be prevented.
	AllowGitWrites bool `json:"allow_git_writes,omitempty"`
	// AllowGitConfig lets commands write .git/config too (it implies
	// AllowGitWrites).
	AllowGitConfig bool `json:"allow_git_config,omitempty"`
	// AutoProtectDangerousFiles keeps ProtectedPaths read-only inside every
	// writable root.
	AutoProtectDangerousFiles bool `json:"auto_protect_dangerous_files"`
}

// NetworkConfig is the network policy.
type NetworkConfig struct {
	Mode NetworkMode `json:"mode"`
	// AllowedDomains and DeniedDomains are host patterns for the filtered
	// mode: "example.com", "*.example.com" (subdomains only), an optional
	// ":port" (without one, 80 and 443 when allowed, every port when
	// denied), an IP literal (allowed only
	// when listed). Denied wins; "*" in DeniedDomains means "everything not
	// allowed". Private, loopback, link-local and metadata addresses are
	// refused whatever the lists say. DeniedDomains with the allowed mode,
	// which has no proxy to enforce them, is a config error.
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	DeniedDomains  []string `json:"denied_domains,omitempty"`
	// Resolver resolves names for the egress proxy; nil uses the system's
	// (net.DefaultResolver, which reads /etc/hosts). It is asked for rooted
	// names ("example.com."), never to be extended by a search list. A
	// sandboxed program never resolves names itself.
	Resolver egress.Resolver `json:"-"`
	// OnRequest is asked about a host no list decided; nil denies.
	OnRequest func(ctx context.Context, host string, port int) (bool, error) `json:"-"`
	// OnDecision receives every decision of the egress proxy (the audit
	// log's network events). It must not block.
	OnDecision func(NetworkDecision) `json:"-"`
	// AllowUnixSockets lets commands create AF_UNIX sockets (socketpair is
	// always allowed). Off by default: a path socket is reachable across
	// network namespaces, and before Landlock ABI 9 nothing else keeps a
	// command from connecting to host services (docker, ssh-agent, ...)
	// listening on one in a readable directory. On Landlock ABI 9 and later
	// they are allowed and confined to the writable roots and /tmp.
	AllowUnixSockets bool `json:"allow_unix_sockets,omitempty"`
}

// ResourceLimits bound a sandboxed command. 0 means "no limit of this kind".
type ResourceLimits struct {
	MaxProcesses       int64 `json:"max_processes"`
	MaxMemoryBytes     int64 `json:"max_memory_bytes"`
	MaxFileDescriptors int64 `json:"max_file_descriptors"`
	MaxCPUSeconds      int64 `json:"max_cpu_seconds"`
	// CountedMemoryOnly, for a sandbox whose memory limit no memory cgroup
	// enforces, refuses the shared memory that no count of a process's
	// memory sees (memfd_create, memfd_secret and System V shared memory
	// answer ENOSYS, mmap of MAP_SHARED|MAP_ANONYMOUS EPERM, and the
	// sandbox's /dev/zero is /dev/full, which cannot be mapped, or in the
	// reduced tier the host's, for reading only), so that a monitor
	// summing the tree's memory sees all of it. agentbox run sets it: its
	// monitor is such a sum. Without a
	// monitor, RLIMIT_DATA bounds each process and nothing bounds the
	// tree, and this changes nothing worth its cost.
	CountedMemoryOnly bool `json:"counted_memory_only,omitempty"`
}

// Defaults.
const (
	DefaultMaxProcesses       = 1024
	DefaultMaxMemoryBytes     = 2 << 30
	DefaultMaxFileDescriptors = 1024
	DefaultMaxOutputBytes     = 10 << 20
	DefaultShell              = "/bin/sh"
)

// ProtectedPaths are kept read-only inside every writable root when
// AutoProtectDangerousFiles is on: files that make other programs run code
// (git's, editors' and agents' settings: VS Code tasks, dev container
// commands that run on the host, Claude Code hooks, the MCP servers of
// Cursor, Gemini CLI and .mcp.json, Zed tasks) and agentbox's own policy
// files.
// One that does not exist yet is held by an empty placeholder directory
// for the length of the command (removed afterwards), so it cannot be
// created either. .git is read-only whole unless AllowGitWrites.
var ProtectedPaths = []string{
	".git", ".gitmodules", ".vscode", ".idea", ".mcp.json", ".envrc", ".agentbox",
	".devcontainer", ".devcontainer.json", ".claude", ".cursor", ".gemini", ".zed",
	// Coding agents' project settings, which name MCP servers, hooks or
	// plugins the agent starts when it opens the project.
	".roo", ".kilocode", ".continue", ".amazonq", ".kiro", ".codex", ".junie", ".qwen", ".opencode",
}

// AgentConfigFiles are coding agents' project configuration files that
// name commands the agent runs (MCP servers, language servers, lint and
// test commands), at the top of each writable root. They stay read-only
// where they exist. One the command creates is renamed away after it and
// reported (a planted-agent-config violation): holding missing ones for
// the run would put files in the project that git and the agent inside
// would see, and the command-line agents that read them do so when they
// start, not while the command runs.
var AgentConfigFiles = []string{"opencode.json", "opencode.jsonc", "crush.json", ".crush.json", ".aider.conf.yml"}

// ProtectedIfPresent are kept read-only inside writable roots where they
// exist: a visible name is not held with a placeholder when missing.
var ProtectedIfPresent = []string{
	"agentbox.yaml",
	// mise runs a configuration's [hooks] and env scripts when the user's
	// shell enters the directory, and a file once trusted stays trusted
	// when it changes (trust goes by path). A new one asks for trust first.
	"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise", ".config/mise", ".config/mise.toml",
	// Other version control systems' repositories, read-only like .git:
	// Mercurial's and Sapling's config load extensions (Python) and run
	// hooks, Jujutsu's names the pager and diff tools its commands run.
	".hg", ".sl", ".jj",
}

// HookManagerFiles are kept read-only inside writable roots where they
// exist: the hooks that husky, the pre-commit framework and lefthook put in
// .git/hooks (or core.hooksPath) run the scripts and commands these name at
// every commit. A project without them has no such hook to fool, so they
// are not held where missing.
var HookManagerFiles = []string{
	".husky", ".pre-commit-config.yaml", ".pre-commit-config.yml",
	"lefthook.yml", "lefthook.yaml", "lefthook.json", "lefthook.toml",
	".lefthook.yml", ".lefthook.yaml", ".lefthook.json", ".lefthook.toml",
	"lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.yaml",
	".lefthook",
}

// ShellStartupFiles are the files and directories that shells, git and a
// login session run code from: kept read-only inside writable roots where
// they exist. Where a writable root holds the home directory, the home's
// are also held when missing, like ProtectedPaths: only there are they
// read.
var ShellStartupFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".bashrc.d", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc",
	".mkshrc", ".config/fish", ".gitconfig", ".config/git",
	".xprofile", ".xsessionrc", ".pam_environment", ".config/environment.d",
	".config/autostart", ".config/systemd/user",
}

// systemDenied are host paths no sandbox may read: kernel and device state,
// and the control sockets of daemons that would hand out root.
var systemDenied = []string{"/sys", "/var/snap/lxd/common/lxd/unix.socket", "/var/lib/lxd/unix.socket",
	"/var/lib/incus/unix.socket", "/var/snap/microk8s/current/credentials"}

// DefaultDenyRead returns the default deny-read set for the current user:
// credential stores in the home directories (paths.Homes: $HOME's and the
// account's own where HOME names another), /sys, daemon sockets, and
// agentbox's own state and data directories. (Other processes' memory is out
// of reach through the pid namespace, whatever the list says.)
func DefaultDenyRead() []string {
	var out []string
	homes := paths.Homes()
	for _, home := range homes {
		for _, s := range credpaths.Home {
			out = append(out, filepath.Join(home, filepath.FromSlash(s)))
		}
	}
	out = append(out, movedStores(homes, os.Getenv)...)
	out = append(out, systemDenied...)
	return append(out, paths.Places()...)
}

// movedStores returns the credential stores the environment moves out of
// their place in the home (KUBECONFIG, GNUPGHOME, CARGO_HOME/credentials,
// HISTFILE, …; XDG_CONFIG_HOME and its siblings for the stores under
// .config, .local/share, .local/state and .cache). A value that is not
// absolute, or that names the root, the home or a directory above it, is
// skipped: denying it would deny everything; so is one in /dev, /proc or
// /sys (HISTFILE=/dev/null, LESSHISTFILE=/dev/null turn a history off).
func movedStores(homes []string, getenv func(string) string) []string {
	usable := func(p string) bool {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || p == "/" {
			return false
		}
		for _, sys := range []string{"/dev", "/proc", "/sys"} {
			if p == sys || strings.HasPrefix(p, sys+"/") {
				return false
			}
		}
		for _, home := range homes {
			if rel, err := filepath.Rel(p, home); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
				return false // a home or above it
			}
		}
		return true
	}
	var out []string
	for _, m := range credpaths.Moved {
		vals := []string{getenv(m.Var)}
		if m.List {
			vals = filepath.SplitList(vals[0])
		}
		for _, v := range vals {
			if v != "" && usable(v) {
				out = append(out, filepath.Join(v, filepath.FromSlash(m.Sub)))
			}
		}
	}
	for _, x := range credpaths.XDG {
		base := getenv(x.Var)
		if base == "" || !usable(base) {
			continue
		}
		for _, s := range credpaths.Home {
			if rest, ok := strings.CutPrefix(s, x.Prefix); ok {
				out = append(out, filepath.Join(base, filepath.FromSlash(rest)))
			}
		}
	}
	return out
}

// DefaultConfig is the default policy: read everywhere but the deny-read
// set, write nowhere but a private /tmp, network filtered with an empty
// allow-list, limits of 1024 processes, 2 GiB of memory and 1024 open files,
// strict fallback.
func DefaultConfig() Config {
	return Config{
		Filesystem: FilesystemConfig{
			DenyRead:                  DefaultDenyRead(),
			Scratch:                   DefaultScratch(),
			AutoProtectDangerousFiles: true,
		},
		Network: NetworkConfig{Mode: NetworkFiltered},
		ResourceLimits: ResourceLimits{
			MaxProcesses:       DefaultMaxProcesses,
			MaxMemoryBytes:     DefaultMaxMemoryBytes,
			MaxFileDescriptors: DefaultMaxFileDescriptors,
		},
		Shell:          DefaultShell,
		MaxOutputBytes: DefaultMaxOutputBytes,
		FallbackPolicy: FallbackStrict,
		profiled:       true,
	}
}

// CIConfig is DefaultConfig with the network blocked outright.
func CIConfig() Config {
	c := DefaultConfig()
	c.Network.Mode = NetworkBlocked
	return c
}

// DevelopmentConfig is for a developer's own machine: the host network, four
// times the default limits, and the warn fallback, so that a machine without
// user namespaces still runs commands with the layers it has.
func DevelopmentConfig() Config {
	c := DefaultConfig()
	c.Network.Mode = NetworkAllowed
	c.ResourceLimits.MaxProcesses *= 4
	c.ResourceLimits.MaxMemoryBytes *= 4
	c.ResourceLimits.MaxFileDescriptors *= 4
	c.FallbackPolicy = FallbackWarn
	return c
}

// Validate reports the first invalid field as a *ConfigError.
func (c *Config) Validate() error {
	if !c.profiled {
		return configErr("Config", "start from DefaultConfig, CIConfig or DevelopmentConfig: a Config built from nothing has no deny list and no limits")
	}
	lists := []struct {
		name  string
		paths []string
	}{
		{"Filesystem.WritableRoots", c.Filesystem.WritableRoots},
		{"Filesystem.DenyWrite", c.Filesystem.DenyWrite},
		{"Filesystem.DenyRead", c.Filesystem.DenyRead},
		{"Filesystem.AllowRead", c.Filesystem.AllowRead},
		{"Filesystem.Scratch", c.Filesystem.Scratch},
	}
	for _, l := range lists {
		if err := checkPaths(l.name, l.paths); err != nil {
			return err
		}
	}
	if err := checkWritable("Filesystem.WritableRoots", c.Filesystem.WritableRoots); err != nil {
		return err
	}
	if err := checkScratch("Filesystem.Scratch", c.Filesystem.Scratch); err != nil {
		return err
	}
	for i, p := range c.Network.AllowedDomains {
		if _, err := egress.ParsePattern(p); err != nil {
			return configErr(fmt.Sprintf("Network.AllowedDomains[%d]", i), "%v", err)
		}
	}
	for i, p := range c.Network.DeniedDomains {
		if _, err := egress.ParsePattern(p); err != nil {
			return configErr(fmt.Sprintf("Network.DeniedDomains[%d]", i), "%v", err)
		}
	}
	if c.Network.Mode == NetworkAllowed && len(c.Network.DeniedDomains) > 0 {
		return configErr("Network.DeniedDomains", "the allowed mode gives the host's network without the proxy, so nothing would be denied; use the filtered mode, or remove the list")
	}
	switch c.Network.Mode {
	case NetworkBlocked, NetworkFiltered, NetworkAllowed:
	default:
		return configErr("Network.Mode", "unknown mode %d (want blocked, filtered or allowed)", int(c.Network.Mode))
	}
	limits := []struct {
		name string
		v    int64
	}{
		{"ResourceLimits.MaxProcesses", c.ResourceLimits.MaxProcesses},
		{"ResourceLimits.MaxMemoryBytes", c.ResourceLimits.MaxMemoryBytes},
		{"ResourceLimits.MaxFileDescriptors", c.ResourceLimits.MaxFileDescriptors},
		{"ResourceLimits.MaxCPUSeconds", c.ResourceLimits.MaxCPUSeconds},
		{"MaxOutputBytes", c.MaxOutputBytes},
	}
	for _, l := range limits {
		if l.v < 0 {
			return configErr(l.name, "must not be negative, got %d", l.v)
		}
	}
	if err := c.checkCredentials(); err != nil {
		return err
	}
	if c.Shell != "" && !filepath.IsAbs(c.Shell) {
		return configErr("Shell", "must be an absolute path, got %q", c.Shell)
	}
	switch c.FallbackPolicy {
	case "", FallbackStrict, FallbackWarn:
	default:
		return configErr("FallbackPolicy", "unknown policy %q (want %q or %q)", c.FallbackPolicy, FallbackStrict, FallbackWarn)
	}
	return nil
}

func checkPaths(field string, ps []string) error {
	for i, p := range ps {
		if filepath.IsAbs(p) && !strings.ContainsAny(p, "*?[") {
			continue // the common case, without formatting the name
		}
		name := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case p == "":
			return configErr(name, "empty path")
		case !filepath.IsAbs(p):
			return configErr(name, "%q is not an absolute path", p)
		case strings.ContainsAny(p, "*?["):
			// A path that names no file but reads as a pattern: the
			// caller meant one, and a deny of "*.pem" would deny nothing.
			if _, err := os.Lstat(p); err != nil {
				return configErr(name, "%q is a pattern, and paths here are not patterns (it would match only a file of that very name, which does not exist): list each path", p)
			}
		}
	}
	return nil
}

// checkWritable refuses writable roots in a kernel filesystem (after
// resolving symlinks, so that a link to one is refused too), and ones that
// only a symbolic link turns into a system or start-up directory.
func checkWritable(field string, ps []string) error {
	for i, p := range ps {
		r := resolvePath(p)
		name := fmt.Sprintf("%s[%d]", field, i)
		if err := policy.CheckWritableRoot(r); err != nil {
			if abs, _ := filepath.Abs(p); r != abs {
				return configErr(name, "%s is a symbolic link to /; %v", p, err)
			}
			return configErr(name, "%v", err)
		}
		if k, ok := sandbox.KernelFilesystem(r); ok {
			return configErr(name, "%s", sandbox.KernelFilesystemError(p, r, k))
		}
		if what := linkedIntoSensitive(p, r); what != "" {
			return configErr(name, "%s is a symbolic link to %s, %s: a command that may write somewhere can plant such a link; name %s itself if that is meant", p, r, what, r)
		}
	}
	return nil
}

// checkScratch refuses scratch directories in kernel filesystems: the
// sandbox has its own /proc and /dev, and no /sys.
func checkScratch(field string, ps []string) error {
	for i, p := range ps {
		r := resolvePath(p)
		if k, ok := sandbox.KernelFilesystem(r); ok {
			return configErr(fmt.Sprintf("%s[%d]", field, i), "%s", sandbox.KernelFilesystemError(p, r, k))
		}
	}
	return nil
}

// logger is the Config's Logger, or one that discards.
func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// clone returns a copy of c that shares no slice with it: a Manager keeps
// its own, so that a caller changing the Config it passed (or was given by
// Manager.Config) afterwards, say filtering a deny list in place for
// another Manager, cannot change what the Manager enforces unvalidated.
func (c Config) clone() Config {
	fs := &c.Filesystem
	for _, s := range []*[]string{&fs.WritableRoots, &fs.DenyWrite, &fs.DenyRead, &fs.Scratch, &fs.AllowRead,
		&c.Network.AllowedDomains, &c.Network.DeniedDomains} {
		*s = slices.Clone(*s)
	}
	c.Credentials = slices.Clone(c.Credentials)
	for i := range c.Credentials {
		c.Credentials[i].Hosts = slices.Clone(c.Credentials[i].Hosts)
	}
	return c
}
