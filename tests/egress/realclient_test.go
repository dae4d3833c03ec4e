//go:build linux

package egress_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestHostRealClients: npm and the go command, inside the sandbox, fetch
// from their registries through the proxy with only those registries'
// hosts allowed, and fail without the allow entry. It runs in the original
// test process, on the host's network: the agentbox process needs a way to
// the registries, while the sandbox has, as always, its own network
// namespace whose only way out is the proxy. That is the same as root and
// as an unprivileged user. The registries' hosts come from the host's own
// configuration (npm config get registry, go env GOPROXY); a client that is
// not installed or not configured, or a registry the host cannot reach,
// skips its half with the reason.
func TestHostRealClients(t *testing.T) {
	onHost(t)
	t.Parallel()
	clients := []struct {
		name string
		// setUp finds the registry and returns the sandboxed command, its
		// environment and a check of its successful output; it skips t
		// when the client or the registry is unavailable.
		setUp func(t *testing.T, root string) realClient
	}{
		{"npm_view", npmClient},
		{"go_mod_download", goClient},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Fresh for every run (also under -count): a cache left by an
			// earlier one would spare the client the network.
			root, err := os.MkdirTemp(workDir, "real-"+c.name+"-")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
				t.Fatal(err)
			}
			rc := c.setUp(t, root)
			t.Run("allowed", func(t *testing.T) {
				t.Parallel()
				o := runReal(t, rc, root, rc.hosts)
				if o.res.ExitCode != 0 {
					t.Fatalf("failed with only the registry allowed\n%s", o.dump())
				}
				rc.check(t, o)
				if !slices.ContainsFunc(o.decisions, func(d decision) bool { return d.Allowed && slices.Contains(rc.hosts, d.Host) }) {
					t.Errorf("no allowed connection to the registry\n%s", o.dump())
				}
				o.wantNoRefusalExcept(t, rc.hosts)
			})
			t.Run("refused", func(t *testing.T) {
				t.Parallel()
				o := runReal(t, rc, filepath.Join(root, "refused"), nil)
				if o.res.ExitCode == 0 {
					t.Fatalf("succeeded with nothing allowed\n%s", o.dump())
				}
				o.wantNoneAllowed(t)
				if !slices.ContainsFunc(o.res.Violations, func(v agentbox.Violation) bool {
					h, _, _ := net.SplitHostPort(v.Detail)
					return v.Kind == "network" && v.Rule == "default-deny" && slices.Contains(rc.hosts, h)
				}) {
					t.Errorf("no default-deny violation for the registry\n%s", o.dump())
				}
			})
		})
	}
}

// realClient is one registry client to run in the sandbox.
type realClient struct {
	argv  []string
	env   func(root string) []string
	hosts []string // the registry's hosts, to allow
	check func(t *testing.T, o outcome)
}

// runReal runs rc in a sandbox whose writable root is root, with allow as
// the allow-list and the system's resolver (the host's network).
func runReal(t *testing.T, rc realClient, root string, allow []string) outcome {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var decisions []decision
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = allow
	cfg.Network.OnDecision = func(d decision) {
		mu.Lock()
		decisions = append(decisions, d)
		mu.Unlock()
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, rc.argv[0], rc.argv[1:],
		agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root),
		agentbox.WithEnv(rc.env(root)...), agentbox.WithTimeout(75*time.Second))
	if err != nil {
		t.Fatalf("ExecArgs %q: %v", rc.argv, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return outcome{res: res, decisions: slices.Clone(decisions)}
}

// wantNoRefusalExcept fails on refusals of other hosts than hosts (a
// client may try a secondary mirror; the registry itself must be allowed).
func (o outcome) wantNoRefusalExcept(t *testing.T, hosts []string) {
	t.Helper()
	for _, d := range o.decisions {
		if !d.Allowed && slices.Contains(hosts, d.Host) {
			t.Errorf("the allowed registry was refused (rule %s)\n%s", d.Rule, o.dump())
		}
	}
}

var npmVersion = regexp.MustCompile(`(?m)^\d+\.\d+\.\d+\s*$`)

func npmClient(t *testing.T, root string) realClient {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	out, err := hostOutput(npm, "config", "get", "registry")
	if err != nil {
		t.Skipf("npm config get registry: %v", err)
	}
	registry := strings.TrimSpace(out)
	u, err := url.Parse(registry)
	if err != nil || u.Hostname() == "" || u.Scheme != "https" {
		t.Skipf("npm's registry is not an https URL (%q)", registry)
	}
	skipUnreachable(t, "the npm registry", u)
	return realClient{
		argv: []string{npm, "view", "is-number", "version"},
		env: func(root string) []string {
			return []string{
				"HOME=" + filepath.Join(root, "home"),
				"npm_config_registry=" + registry,
				"npm_config_cache=" + filepath.Join(root, "npm-cache"),
				"npm_config_userconfig=" + filepath.Join(root, "npmrc"),
				"npm_config_update_notifier=false",
				"npm_config_fetch_retries=0", // a refused fetch fails at once
			}
		},
		hosts: []string{strings.ToLower(u.Hostname())},
		check: func(t *testing.T, o outcome) {
			if !npmVersion.MatchString(o.res.Stdout) {
				t.Errorf("npm view printed no version\n%s", o.dump())
			}
		},
	}
}

// goModule is a small module for go mod download.
const goModule, goModuleVersion = "golang.org/x/sync", "v0.18.0"

func goClient(t *testing.T, root string) realClient {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not installed")
	}
	out, err := hostOutput(gobin, "env", "GOPROXY", "GOSUMDB")
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(vals) != 2 {
		t.Fatalf("go env printed %q", out)
	}
	goproxy, gosumdb := vals[0], vals[1]
	var hosts []string
	var first *url.URL
	for _, p := range strings.FieldsFunc(goproxy, func(r rune) bool { return r == ',' || r == '|' }) {
		if p == "direct" || p == "off" {
			continue
		}
		u, err := url.Parse(p)
		if err != nil || u.Hostname() == "" || (u.Scheme != "https" && u.Scheme != "http") {
			continue
		}
		if first == nil {
			first = u
		}
		if h := strings.ToLower(u.Hostname()); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	if first == nil {
		t.Skipf("GOPROXY names no module proxy (%q)", goproxy)
	}
	skipUnreachable(t, "the Go module proxy", first)
	return realClient{
		argv: []string{gobin, "mod", "download", "-json", goModule + "@" + goModuleVersion},
		env: func(root string) []string {
			return []string{
				"HOME=" + filepath.Join(root, "home"),
				"GOPROXY=" + goproxy,
				"GOSUMDB=" + gosumdb,
				"GOMODCACHE=" + filepath.Join(root, "mod"),
				"GOCACHE=" + filepath.Join(root, "cache"),
				"GOPATH=" + filepath.Join(root, "gopath"),
				"GOFLAGS=-modcacherw",
				"GOTOOLCHAIN=local",
				"GOENV=off",
			}
		},
		hosts: hosts,
		check: func(t *testing.T, o outcome) {
			if !strings.Contains(o.res.Stdout, `"Version": "`+goModuleVersion+`"`) {
				t.Errorf("go mod download reported no version\n%s", o.dump())
			}
			zip := filepath.Join(root, "mod", "cache", "download", goModule, "@v", goModuleVersion+".zip")
			if st, err := os.Stat(zip); err != nil || st.Size() == 0 {
				t.Errorf("the module zip is not in the sandbox's module cache: %v", err)
			}
		},
	}
}

// hostOutput runs a configuration query on the host.
func hostOutput(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", &queryError{err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return string(out), nil
}

type queryError struct {
	err    error
	stderr string
}

func (e *queryError) Error() string { return e.err.Error() + ": " + e.stderr }

// skipUnreachable skips t unless the host can open a TCP connection to the
// registry at u.
func skipUnreachable(t *testing.T, what string, u *url.URL) {
	t.Helper()
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(u.Hostname(), port), 5*time.Second)
	if err != nil {
		t.Skipf("%s is not reachable from this host (%v); the real-client test needs it", what, err)
	}
	c.Close()
}
