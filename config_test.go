package agentbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Config)
		field string // "" means valid
	}{
		{"default", func(*Config) {}, ""},
		{"zero fallback means strict", func(c *Config) { c.FallbackPolicy = "" }, ""},
		{"relative writable root", func(c *Config) { c.Filesystem.WritableRoots = []string{"build"} }, "Filesystem.WritableRoots[0]"},
		{"writable /proc", func(c *Config) { c.Filesystem.WritableRoots = []string{"/work", "/proc"} }, "Filesystem.WritableRoots[1]"},
		{"writable in /sys", func(c *Config) { c.Filesystem.WritableRoots = []string{"/sys/fs/cgroup"} }, "Filesystem.WritableRoots[0]"},
		{"writable /dev", func(c *Config) { c.Filesystem.WritableRoots = []string{"/dev"} }, "Filesystem.WritableRoots[0]"},
		{"writable /dev/pts", func(c *Config) { c.Filesystem.WritableRoots = []string{"/dev/pts"} }, "Filesystem.WritableRoots[0]"},
		{"writable /dev/shm", func(c *Config) { c.Filesystem.WritableRoots = []string{"/dev/shm"} }, ""},
		{"writable /devices", func(c *Config) { c.Filesystem.WritableRoots = []string{"/devices"} }, ""},
		{"writable /", func(c *Config) { c.Filesystem.WritableRoots = []string{"/work", "/"} }, "Filesystem.WritableRoots[1]"},
		{"writable / spelt /..", func(c *Config) { c.Filesystem.WritableRoots = []string{"/.."} }, "Filesystem.WritableRoots[0]"},
		{"empty deny path", func(c *Config) { c.Filesystem.DenyRead = append(c.Filesystem.DenyRead, "") }, "Filesystem.DenyRead["},
		{"relative allow-read", func(c *Config) { c.Filesystem.AllowRead = []string{"/ok", "./no"} }, "Filesystem.AllowRead[1]"},
		{"deny pattern", func(c *Config) { c.Filesystem.DenyRead = []string{"/nonexistent/*.pem"} }, "Filesystem.DenyRead[0]"},
		{"deny-write pattern", func(c *Config) { c.Filesystem.DenyWrite = []string{"/nonexistent/.env?"} }, "Filesystem.DenyWrite[0]"},
		{"negative memory", func(c *Config) { c.ResourceLimits.MaxMemoryBytes = -1 }, "ResourceLimits.MaxMemoryBytes"},
		{"negative processes", func(c *Config) { c.ResourceLimits.MaxProcesses = -5 }, "ResourceLimits.MaxProcesses"},
		{"negative output", func(c *Config) { c.MaxOutputBytes = -1 }, "MaxOutputBytes"},
		{"unknown network mode", func(c *Config) { c.Network.Mode = NetworkMode(9) }, "Network.Mode"},
		{"bad domain pattern", func(c *Config) { c.Network.AllowedDomains = []string{"exa mple.com"} }, "Network.AllowedDomains[0]"},
		{"bad denied pattern", func(c *Config) { c.Network.DeniedDomains = []string{"*.*.com"} }, "Network.DeniedDomains[0]"},
		{"denied domains with the host's network", func(c *Config) {
			c.Network.Mode, c.Network.DeniedDomains = NetworkAllowed, []string{"example.com"}
		}, "Network.DeniedDomains"},
		{"denied domains with the network blocked", func(c *Config) {
			c.Network.Mode, c.Network.DeniedDomains = NetworkBlocked, []string{"example.com"}
		}, ""},
		{"relative shell", func(c *Config) { c.Shell = "bash" }, "Shell"},
		{"unknown fallback", func(c *Config) { c.FallbackPolicy = "lenient" }, "FallbackPolicy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConfigInvalid) {
				t.Fatalf("got %v, want a *ConfigError wrapping ErrConfigInvalid", err)
			}
			if !strings.HasPrefix(ce.Field, tc.field) {
				t.Fatalf("error names field %q, want %q", ce.Field, tc.field)
			}
		})
	}
}

// TestZeroConfigRefused: a Config built from nothing has no deny list and
// no limits; NewManager must refuse it rather than run that policy, and a
// Config decoded into a profile is accepted.
func TestZeroConfigRefused(t *testing.T) {
	for name, c := range map[string]Config{
		"zero":            {},
		"network only":    {Network: NetworkConfig{Mode: NetworkBlocked}},
		"cold start only": {ColdStart: true},
	} {
		m, err := NewManager(c)
		var ce *ConfigError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConfigInvalid) || ce.Field != "Config" {
			if m != nil {
				m.Close()
			}
			t.Errorf("%s: NewManager gave %v, want a *ConfigError for Config", name, err)
		}
	}
	c := DefaultConfig()
	if err := json.Unmarshal([]byte(`{"network":{"mode":"blocked"}}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil || c.Network.Mode != NetworkBlocked || len(c.Filesystem.DenyRead) == 0 {
		t.Errorf("a Config decoded into DefaultConfig: %v (mode %v, %d denied)", err, c.Network.Mode, len(c.Filesystem.DenyRead))
	}
}

func TestProfiles(t *testing.T) {
	for name, c := range map[string]Config{"default": DefaultConfig(), "ci": CIConfig(), "dev": DevelopmentConfig()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if DefaultConfig().Network.Mode != NetworkFiltered || CIConfig().Network.Mode != NetworkBlocked {
		t.Error("default must be filtered and ci blocked")
	}
	d := DefaultConfig()
	if d.ResourceLimits.MaxProcesses != 1024 || d.ResourceLimits.MaxMemoryBytes != 2<<30 || d.ResourceLimits.MaxFileDescriptors != 1024 {
		t.Errorf("default limits %+v", d.ResourceLimits)
	}
	if d.FallbackPolicy != FallbackStrict {
		t.Error("default fallback must be strict")
	}
	deny := strings.Join(d.Filesystem.DenyRead, " ")
	for _, want := range []string{"/.ssh", "/.aws", "/.gnupg", "/.kube", "/.config/gh", "/sys"} {
		if !strings.Contains(deny, want) {
			t.Errorf("default deny-read set lacks %s: %s", want, deny)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []Option{
		WithWritableRoots("rel"), WithWritableRoots("/proc/sys"), WithDenyRead(""), WithDenyWrite("x/y"), WithEnv("NOEQUALS"), WithEnv("=v"),
		WithWorkingDir("rel"), WithTimeout(0), WithShell("sh"), WithMaxOutputBytes(0), WithNetwork(NetworkMode(7)), WithTerminalSize(0, 80), WithTerminalSize(24, 0), nil,
	}
	for i, o := range bad {
		if _, err := applyOptions([]Option{o}); !errors.Is(err, ErrConfigInvalid) {
			t.Errorf("option %d: got %v, want ErrConfigInvalid", i, err)
		}
	}
}

func TestSandboxEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=s3cr3t", "GITHUB_TOKEN=t", "LC_ALL=C", "TMPDIR=/host/tmp", "SSH_AUTH_SOCK=/run/x"}
	env := sandboxEnv(base, []string{"EXTRA=1", "HOME=/override"})
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	for _, secret := range []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK"} {
		if _, ok := got[secret]; ok {
			t.Errorf("%s leaked into the sandbox environment", secret)
		}
	}
	want := map[string]string{"PATH": "/usr/bin", "HOME": "/override", "LC_ALL": "C", "TMPDIR": "/tmp", "EXTRA": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
}

// TestMissingCaches: a cache the home lacks is pointed at the private
// /tmp, unless the caller sets the variable; one the home has is left to
// the scratch overlay.
func TestMissingCaches(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only where /tmp is the sandbox's own")
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		extra []string
		want  map[string]string // "" means unset
	}{
		{"npm's cache missing", nil, map[string]string{"npm_config_cache": "/tmp/.npm", "XDG_CACHE_HOME": ""}},
		{"the caller's setting wins", []string{"npm_config_cache=/work/npm"}, map[string]string{"npm_config_cache": "/work/npm"}},
		{"another home", []string{"HOME=" + filepath.Join(home, "none")}, map[string]string{"npm_config_cache": "/tmp/.npm", "XDG_CACHE_HOME": "/tmp/.cache"}},
	} {
		got := map[string]string{}
		for _, kv := range sandboxEnv([]string{"HOME=" + home}, tc.extra) {
			k, v, _ := strings.Cut(kv, "=")
			got[k] = v
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s=%q, want %q", tc.name, k, got[k], v)
			}
		}
	}
}

func TestCapBuffer(t *testing.T) {
	b := &capBuffer{max: 5}
	for _, s := range []string{"ab", "cdef", "gh"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "abcde" || !b.truncated {
		t.Fatalf("got %q truncated=%v", b.String(), b.truncated)
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "A=3"}, []string{"B=x", "C=y"})
	want := []string{"A=3", "B=x", "C=y"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestProxyEnvLeavesTheSandboxLoopbackDirect(t *testing.T) {
	env := strings.Join(proxyEnv(), "\n")
	for _, want := range []string{"HTTPS_PROXY=http://127.0.0.1:3128", "NO_PROXY=localhost,127.0.0.1,::1", "ALL_PROXY=socks5h://127.0.0.1:3128"} {
		if !strings.Contains(env, want+"\n") {
			t.Errorf("missing %s in\n%s", want, env)
		}
	}
}

func TestUnsafeGitKey(t *testing.T) {
	for _, tc := range []struct{ config, key string }{
		{"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", ""},
		{"[remote \"origin\"]\n\turl = https://example.test/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", ""},
		{"[core]\n\tfsmonitor = \"touch /tmp/pwned #\"\n", "core.fsmonitor"},
		{"[CORE]\n\tHooksPath = /x\n", "core.hookspath"},
		{"[alias]\n\tst = !sh -c x\n", "alias.st"},
		{"[filter \"lfs\"]\n\tsmudge = evil\n", "filter.smudge"},
		{"[include]\n\tpath = /elsewhere\n", "include.path"},
		{"[core] fsmonitor = x\n", "core.fsmonitor"},
		{"[core.x]\nurl=y\n", "core.url"},
		{"[broken\n", "[broken"},
	} {
		if got := unsafeGitKey(tc.config); got != tc.key {
			t.Errorf("%q: got %q, want %q", tc.config, got, tc.key)
		}
	}
}

type noProvider struct{}

func (noProvider) Credential(context.Context, string) (vault.Secret, error) {
	return vault.Secret{}, vault.ErrNotFound
}

func TestCredentialConfig(t *testing.T) {
	ok := Credential{Name: "API_TOKEN", Hosts: []string{"api.example.com"}}
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"valid", func(c *Config) { c.Credentials = []Credential{ok}; c.CredentialProvider = noProvider{} }, ""},
		{"no provider", func(c *Config) { c.Credentials = []Credential{ok} }, "CredentialProvider"},
		{"blocked network", func(c *Config) {
			c.Credentials, c.CredentialProvider, c.Network.Mode = []Credential{ok}, noProvider{}, NetworkBlocked
		}, "Credentials"},
		{"bad name", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "api-token"}}, noProvider{}
		}, "Credentials[0]"},
		{"a variable agentbox sets", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "PATH"}}, noProvider{}
		}, "Credentials[0]"},
		{"a variable that changes how programs load", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "BASH_ENV", Hosts: []string{"api.example.com"}}}, noProvider{}
		}, "Credentials[0]"},
		{"twice", func(c *Config) { c.Credentials, c.CredentialProvider = []Credential{ok, ok}, noProvider{} }, "Credentials[1]"},
		{"a header servers send back", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "Idempotency-Key"}}, noProvider{}
		}, "Credentials[0].Header"},
		{"a header that frames the request", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "Content-Length"}}, noProvider{}
		}, "Credentials[0].Header"},
		{"a header that frames the request, with _ for -", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "Content_Length"}}, noProvider{}
		}, "Credentials[0].Header"},
		{"a header that frames the request, other case and _", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "TRANSFER_encoding"}}, noProvider{}
		}, "Credentials[0].Header"},
		{"the proxy's own header, with _ for -", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "proxy_authorization"}}, noProvider{}
		}, "Credentials[0].Header"},
		{"a named header", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"api.example.com"}, Header: "X-Honeycomb-Team"}}, noProvider{}
		}, ""},
		{"anywhere", func(c *Config) {
			c.Credentials, c.CredentialProvider = []Credential{{Name: "T", Hosts: []string{"*"}}}, noProvider{}
		}, "Credentials[0].Hosts[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			var ce *ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Fatalf("got %v, want a ConfigError on %s", err, tc.field)
			}
		})
	}
}

// TestWorkingDirInPrivateDir checks how a working directory inside the
// directories every sandbox replaces is treated: /tmp and /dev/shm
// themselves, and all of /run, are refused unless a writable root brings
// them in; a directory inside /tmp is shown to the sandbox (read-only, by
// the runtime).
func TestWorkingDirInPrivateDir(t *testing.T) {
	inTmp := t.TempDir()
	if !strings.HasPrefix(inTmp, "/tmp/") {
		t.Skipf("the test's temporary directory %s is not in /tmp", inTmp)
	}
	for _, c := range []struct {
		dir      string
		writable []string
		deny     []string
		refused  bool
		visible  bool
	}{
		{dir: "/tmp", refused: true},
		{dir: "/dev/shm", refused: true},
		{dir: "/run", refused: true},
		{dir: "/run/user", refused: true},
		{dir: "/run/user", writable: []string{"/run/user"}},
		{dir: "/tmp", writable: []string{"/tmp"}},
		{dir: inTmp, visible: true},
		{dir: inTmp, writable: []string{inTmp}, visible: true}, // the runtime skips it then
		{dir: inTmp + "/missing"},                              // the init reports it
		{dir: "/var/tmp"},
		{dir: "/"},
		{dir: "/sys/fs", refused: true},                                      // in the default deny set
		{dir: "/srv/secret/x", deny: []string{"/srv/secret"}, refused: true}, // denied, even if missing
		{dir: "/srv/secretive", deny: []string{"/srv/secret"}},
	} {
		cfg := DefaultConfig()
		cfg.Filesystem.WritableRoots = c.writable
		cfg.Filesystem.DenyRead = append(cfg.Filesystem.DenyRead, c.deny...)
		err := checkWorkingDir(c.dir, cfg, &callOptions{}, new(resolver))
		if refused := errors.Is(err, ErrConfigInvalid); refused != c.refused {
			t.Errorf("%s (writable %v): got %v, want refused %v", c.dir, c.writable, err, c.refused)
		}
		if got := visibleDir(c.dir); (len(got) == 1 && got[0] == c.dir) != c.visible {
			t.Errorf("%s: visible %v, want %v", c.dir, got, c.visible)
		}
	}
}

func TestWritableRootLinkToKernelFS(t *testing.T) {
	link := filepath.Join(t.TempDir(), "proc")
	if err := os.Symlink("/proc", link); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Filesystem.WritableRoots = []string{link}
	if err := c.Validate(); !errors.Is(err, ErrConfigInvalid) || !strings.Contains(err.Error(), link+" is inside /proc") && !strings.Contains(err.Error(), link+" is a kernel") {
		t.Errorf("a link to /proc as a writable root: got %v, want ErrConfigInvalid naming it", err)
	}
}

func TestProxyCredentialsDefaultHosts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Network.AllowedDomains = []string{"api.anthropic.com", "*.googleapis.com", "*"}
	cfg.Credentials = []Credential{{Name: "ANTHROPIC_API_KEY"}, {Name: "GMAIL_TOKEN"}, {Name: "API_KEY"},
		{Name: "OPENAI_API_KEY", Hosts: []string{"llm.example.com"}}}
	creds, env, err := proxyCredentials(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ANTHROPIC_API_KEY": "api.anthropic.com",
		"GMAIL_TOKEN":       "gmail.googleapis.com www.googleapis.com",
		"API_KEY":           "api.anthropic.com *.googleapis.com", // not a vendor's: every allowed host but "*"
		"OPENAI_API_KEY":    "llm.example.com",                    // its own hosts win
	}
	for _, c := range creds {
		if got := strings.Join(c.Hosts, " "); got != want[c.Name] {
			t.Errorf("%s → %q, want %q", c.Name, got, want[c.Name])
		}
	}
	if len(creds) != 4 || len(env) != 4 {
		t.Fatalf("%d credentials, %d variables", len(creds), len(env))
	}
}

// TestMovedStores: the environment's relocations of credential stores are
// denied where they point, and a value that would deny a home or the
// whole tree is skipped.
func TestMovedStores(t *testing.T) {
	env := map[string]string{
		"KUBECONFIG":      "/h/.config/kube/config:/etc/kube/admin.conf::relative/x",
		"CARGO_HOME":      "/h/.local/share/cargo",
		"GNUPGHOME":       "/h",        // the home itself: skipped
		"GH_CONFIG_DIR":   "/u",        // the other home (the account's): skipped
		"DOCKER_CONFIG":   "/",         // the root: skipped
		"HISTFILE":        "hist",      // relative: skipped
		"LESSHISTFILE":    "/dev/null", // a history turned off: skipped
		"PSQL_HISTORY":    "/proc/self/fd/1",
		"XDG_CONFIG_HOME": "/h/cfg",
		"XDG_DATA_HOME":   "/", // skipped
	}
	got := movedStores([]string{"/h", "/u"}, func(k string) string { return env[k] })
	for _, want := range []string{"/h/.config/kube/config", "/etc/kube/admin.conf", "/h/.local/share/cargo/credentials",
		"/h/.local/share/cargo/credentials.toml", "/h/cfg/gh", "/h/cfg/gcloud"} {
		if !slices.Contains(got, want) {
			t.Errorf("movedStores: %s missing from %q", want, got)
		}
	}
	for _, p := range got {
		if p == "/" || p == "/h" || p == "/u" || !filepath.IsAbs(p) || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/h/.local/share/") && !strings.HasPrefix(p, "/h/.local/share/cargo/") {
			t.Errorf("movedStores: %q must not be denied", p)
		}
	}
}
