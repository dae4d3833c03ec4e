//go:build linux

package egress_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

var cliOnce struct {
	sync.Once
	path string
	err  error
}

// agentboxCLI builds cmd/agentbox once. It builds offline (GOPROXY=off): the
// namespace has no network, and every module the CLI needs is in go.mod and
// so in the module cache the test binary was built from.
func agentboxCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			cliOnce.err = err
			return
		}
		out, err := exec.Command(gobin, "env", "GOMOD").Output()
		if err != nil || len(bytes.TrimSpace(out)) == 0 {
			cliOnce.err = errors.New("cannot find the module root")
			return
		}
		root := filepath.Dir(string(bytes.TrimSpace(out)))
		bin := filepath.Join(workDir, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			cliOnce.err = err
			return
		}
		cliOnce.path = filepath.Join(bin, "agentbox")
		cmd := exec.Command(gobin, "build", "-o", cliOnce.path, "./cmd/agentbox")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			cliOnce.err = errors.New("go build ./cmd/agentbox: " + err.Error() + "\n" + string(out))
		}
	})
	if cliOnce.err != nil {
		t.Fatal(cliOnce.err)
	}
	return cliOnce.path
}

// TestNetCLI: `agentbox exec` with --allow-domain and --deny-domain, the
// filtered network being its default. The CLI resolves names with the
// system resolver, which reads the suite's /etc/hosts (bind-mounted in its
// private mount namespace), so the same names lead to the same topology.
func TestNetCLI(t *testing.T) {
	inNetns(t)
	t.Parallel()
	cases := []struct {
		name  string
		flags []string
		url   string
		// exit is agentbox's exit status: curl's own.
		exit int
		// body must be in the output of an allowed request.
		body string
		// violation must be in the --json result of a refused one.
		violation agentbox.Violation
		unreached []string
	}{
		{name: "allowed_https", flags: []string{"--allow-domain", "allowed.test"}, url: "https://allowed.test/cli-https",
			body: "upstream https " + allowedAddr + ":443 host=allowed.test path=/cli-https"},
		{name: "allowed_http_explicit_mode", flags: []string{"--network", "filtered", "--allow-domain", "allowed.test"}, url: "http://allowed.test/cli-http",
			body: "upstream http " + allowedAddr + ":80 host=allowed.test path=/cli-http"},
		{name: "default_refuses_everything", url: "https://allowed.test/cli", exit: 56,
			violation: agentbox.Violation{Kind: "network", Detail: "allowed.test:443", Rule: "default-deny"}},
		{name: "not_allowed", flags: []string{"--allow-domain", "allowed.test"}, url: "https://other.test/cli", exit: 56,
			violation: agentbox.Violation{Kind: "network", Detail: "other.test:443", Rule: "default-deny"}, unreached: []string{otherAddr + ":443"}},
		{name: "denied", flags: []string{"--allow-domain", "denied.test", "--deny-domain", "denied.test"}, url: "http://denied.test/cli",
			violation: agentbox.Violation{Kind: "network", Detail: "denied.test:80", Rule: "deny:denied.test"}, unreached: []string{deniedAddr + ":80"}},
		{name: "guard_loopback", flags: []string{"--allow-domain", "loop.test"}, url: "http://loop.test/cli",
			violation: agentbox.Violation{Kind: "network", Detail: "loop.test:80", Rule: "guard:loopback"}, unreached: []string{"127.0.0.1:80"}},
		{name: "guard_metadata", flags: []string{"--allow-domain", "meta.test"}, url: "http://meta.test/latest/meta-data/",
			violation: agentbox.Violation{Kind: "network", Detail: "meta.test:80", Rule: "guard:metadata"}, unreached: []string{metadataAddr + ":80"}},
		{name: "guard_host_address", flags: []string{"--allow-domain", "hostaddr.test"}, url: "https://hostaddr.test/cli", exit: 56,
			violation: agentbox.Violation{Kind: "network", Detail: "hostaddr.test:443", Rule: "guard:host-address"}, unreached: []string{hostAddr + ":443"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"exec"}, c.flags...)
			if c.body == "" {
				args = append(args, "--json")
			}
			args = append(args, "--")
			args = append(args, curlArgv(c.url)...)
			stdout, stderr, code := runCLI(t, args...)
			if code != c.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.exit, stdout, stderr)
			}
			if c.body != "" {
				if !strings.Contains(stdout, c.body) {
					t.Errorf("want %q in the output\nstdout:\n%s\nstderr:\n%s", c.body, stdout, stderr)
				}
				return
			}
			var res agentbox.ExecResult
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("--json output: %v\n%s", err, stdout)
			}
			if !slices.Contains(res.Violations, c.violation) {
				t.Errorf("violations %+v, want %+v\nstdout:\n%s", res.Violations, c.violation, stdout)
			}
			if strings.Contains(res.Stdout, "upstream ") || !strings.Contains(res.Stdout+res.Stderr, "403") {
				t.Errorf("want a 403 from the proxy\n%s", stdout)
			}
			expectUnreached(t, c.unreached...)
		})
	}
	// An invalid pattern is a configuration error: agentbox exits 125 and
	// names it.
	t.Run("invalid_pattern", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := runCLI(t, "exec", "--allow-domain", "bad host!", "--", "/bin/true")
		if code != 125 || !strings.Contains(stderr, "bad host!") {
			t.Errorf("exit %d, want 125 naming the pattern; stderr:\n%s", code, stderr)
		}
	})
}

// runCLI runs the agentbox CLI with args and returns its output and exit
// status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := agentboxCLI(t) // before the deadline starts: a cold build is slow
	ctx := ctxT(t, 30*time.Second)
	cmd := exec.CommandContext(ctx, bin, args...)
	// A hung CLI prints its goroutines on SIGQUIT.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("agentbox %q hung\nstdout:\n%s\nstderr:\n%s", args, o.String(), e.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("agentbox %q: %v", args, err)
	}
	return o.String(), e.String(), code
}
