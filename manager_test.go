package agentbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// hostDir is a directory the sandbox can see (/tmp is private inside it).
func hostDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "agentbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// privateHome gives the test a home of its own, with a ~/.cache, as HOME
// (set before the test makes its Config: the default scratch and deny
// paths follow it). A test that plants files in the user's real ~/.cache
// races the sandboxes that other packages' tests start meanwhile: one
// planned with the file there is built after it is gone (move_mount:
// invalid argument, CI as the unprivileged user).
func privateHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(hostDir(t), "home")
	if err := os.MkdirAll(filepath.Join(home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return home
}

func newManager(t *testing.T, cfg agentbox.Config) *agentbox.Manager {
	t.Helper()
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func run(t *testing.T, m *agentbox.Manager, command string, opts ...agentbox.Option) *agentbox.ExecResult {
	t.Helper()
	res, err := m.Exec(context.Background(), command, opts...)
	if err != nil {
		t.Fatalf("Exec(%q): %v", command, err)
	}
	return res
}

func TestExecBasics(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	res := run(t, m, "echo out; echo err >&2; exit 3")
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || !res.Sandboxed {
		t.Fatalf("got %+v", res)
	}
	if len(res.Layers) < 5 {
		t.Fatalf("layers %v", res.Layers)
	}
	res = run(t, m, "kill -9 $$", agentbox.WithApproved())
	if res.ExitCode != 128+9 {
		t.Fatalf("a SIGKILLed command exited %d, want 137", res.ExitCode)
	}
	args, err := m.ExecArgs(context.Background(), "printf", []string{"%s|", "a b", "c"})
	if err != nil || args.Stdout != "a b|c|" {
		t.Fatalf("ExecArgs: %v %+v", err, args)
	}
}

func TestProgramNotFound(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	_, err := m.ExecArgs(context.Background(), "no-such-program-anywhere", nil)
	var se *agentbox.SetupError
	if !errors.As(err, &se) || se.ExitCode != 127 {
		t.Fatalf("got %v, want a SetupError with exit code 127", err)
	}
	if _, err := m.Exec(context.Background(), ""); !errors.Is(err, agentbox.ErrNilCommand) {
		t.Fatalf("empty command: %v", err)
	}
}

// TestRelativeProgramPath: a program named relative to the working
// directory (./run.sh, sub/run.sh), as agents do (./gradlew,
// ./node_modules/.bin/jest), is found there, not in the sandbox init's own
// directory. It was refused as not found.
func TestRelativeProgramPath(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.sh", "sub/run.sh"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\necho ran "+f+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"./run.sh", "sub/run.sh"} {
		res, err := m.ExecArgs(context.Background(), name, nil, agentbox.WithWorkingDir(dir))
		want := "ran " + strings.TrimPrefix(name, "./") + "\n"
		if err != nil || res.ExitCode != 0 || res.Stdout != want {
			t.Errorf("%s in %s: %+v %v", name, dir, res, err)
		}
	}
}

// Each per-call option applies to that call only.
func TestOptionsArePerCall(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	f := filepath.Join(dir, "f")
	res := run(t, m, "echo hi > "+f+" && echo $MARK && pwd",
		agentbox.WithWritableRoots(dir), agentbox.WithEnv("MARK=set"), agentbox.WithWorkingDir(dir))
	if res.ExitCode != 0 || res.Stdout != "set\n"+dir+"\n" {
		t.Fatalf("first call: %+v", res)
	}
	if b, err := os.ReadFile(f); err != nil || string(b) != "hi\n" {
		t.Fatalf("the writable root was not written on the host: %q %v", b, err)
	}
	res = run(t, m, "echo \"[$MARK]\"; echo again > "+f)
	if res.ExitCode == 0 || res.Stdout != "[]\n" {
		t.Fatalf("second call kept the first call's options: %+v", res)
	}
	if b, _ := os.ReadFile(f); string(b) != "hi\n" {
		t.Fatalf("the second call wrote outside its writable roots: %q", b)
	}
	res = run(t, m, "cat "+f, agentbox.WithDenyRead(f))
	if res.ExitCode == 0 || strings.Contains(res.Stdout, "hi") {
		t.Fatalf("WithDenyRead did not hide the file: %+v", res)
	}
	if res := run(t, m, "cat "+f); res.Stdout != "hi\n" {
		t.Fatalf("the deny of the previous call stuck: %+v", res)
	}
}

func TestTimeoutKillsTheTree(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	start := time.Now()
	res, err := m.Exec(context.Background(), "(sleep 30; touch "+dir+"/late) & sleep 30",
		agentbox.WithTimeout(300*time.Millisecond), agentbox.WithWritableRoots(dir))
	if !errors.Is(err, agentbox.ErrTimeout) || res == nil || res.ExitCode != 137 || !res.TimedOut {
		t.Fatalf("got %v %+v", err, res)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("timeout took %v", time.Since(start))
	}
	// The background child must be gone with the rest of the tree.
	time.Sleep(200 * time.Millisecond)
	if out, _ := exec.Command("pgrep", "-f", "sleep 30; touch "+dir).Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("a process of the timed-out tree survived: %s", out)
	}
}

func TestMaxOutputBytes(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	res := run(t, m, "head -c 100000 /dev/zero | tr '\\0' x", agentbox.WithMaxOutputBytes(1000))
	if len(res.Stdout) != 1000 || !res.Truncated || res.ExitCode != 0 {
		t.Fatalf("stdout %d bytes, truncated=%v, exit %d", len(res.Stdout), res.Truncated, res.ExitCode)
	}
}

// The blocked network has no way to the host's loopback; the allowed one
// does (the control that shows the test can connect at all).
func TestNetworkModes(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf(`python3 -c "import socket; s=socket.create_connection(('127.0.0.1', %d), timeout=3); print(s.recv(100).decode().strip())"`, port)
	m := newManager(t, agentbox.CIConfig())
	if res := run(t, m, probe); res.ExitCode == 0 || strings.Contains(res.Stdout, "hello") {
		t.Fatalf("blocked network reached the host's loopback: %+v", res)
	}
	if res := run(t, m, probe, agentbox.WithNetwork(agentbox.NetworkAllowed)); res.Stdout != "hello from the host\n" {
		t.Fatalf("allowed network could not reach the host: %+v", res)
	}
}

// The filtered network refuses what the lists do not allow, and says so.
func TestFilteredRefusalIsAViolation(t *testing.T) {
	t.Parallel()
	var decisions []agentbox.NetworkDecision
	cfg := agentbox.DefaultConfig()
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) { decisions = append(decisions, d) }
	m := newManager(t, cfg)
	res := run(t, m, `python3 -c "
import urllib.request, urllib.error
try:
    urllib.request.urlopen('http://not-allowed.example.test/', timeout=5)
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get('X-Agentbox-Deny'))
"`)
	if res.Stdout != "403 default-deny\n" {
		t.Fatalf("got %+v", res)
	}
	if len(res.Violations) != 1 || res.Violations[0].Kind != "network" || res.Violations[0].Rule != "default-deny" {
		t.Fatalf("violations %+v", res.Violations)
	}
	if len(decisions) != 1 || decisions[0].Allowed || decisions[0].Host != "not-allowed.example.test" {
		t.Fatalf("decisions %+v", decisions)
	}
}

func TestWrapStreams(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "read x; echo got $x; exit 5")
	cmd.Stdin = strings.NewReader("line\n")
	cmd.Stdout = &out
	cleanup, err := m.Wrap(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || out.String() != "got line\n" {
		t.Fatalf("err %v, output %q", err, out.String())
	}
	if _, err := m.Wrap(context.Background(), nil); !errors.Is(err, agentbox.ErrNilCommand) {
		t.Fatalf("nil command: %v", err)
	}
}

func TestClosedManager(t *testing.T) {
	m, err := agentbox.NewManager(agentbox.CIConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Exec(context.Background(), "true"); !errors.Is(err, agentbox.ErrManagerClosed) {
		t.Fatalf("got %v", err)
	}
	if err := m.UpdateConfig(agentbox.CIConfig()); !errors.Is(err, agentbox.ErrManagerClosed) {
		t.Fatalf("UpdateConfig after Close: %v", err)
	}
}

// TestCloseWhileStarting closes Managers while calls are starting
// sandboxes: every call ends with Close (a killed command's result, or
// ErrManagerClosed), and no sandbox that finished starting during Close
// runs on unkilled.
func TestCloseWhileStarting(t *testing.T) {
	t.Parallel()
	const rounds, callers = 12, 4
	for round := range rounds {
		m, err := agentbox.NewManager(agentbox.CIConfig())
		if err != nil {
			t.Fatal(err)
		}
		type outcome struct {
			res *agentbox.ExecResult
			err error
		}
		outcomes := make(chan outcome, callers)
		for i := range callers {
			go func() {
				// Staggered, so that Close meets calls at every stage of a start.
				time.Sleep(time.Duration(i*round%7) * 3 * time.Millisecond)
				res, err := m.ExecArgs(context.Background(), "/bin/sleep", []string{"30"})
				outcomes <- outcome{res, err}
			}()
		}
		time.Sleep(time.Duration(round%5) * 4 * time.Millisecond)
		if err := m.Close(); err != nil {
			t.Errorf("round %d: Close: %v", round, err)
		}
		deadline := time.After(10 * time.Second)
		for range callers {
			select {
			case o := <-outcomes:
				switch {
				case errors.Is(o.err, agentbox.ErrManagerClosed):
				case o.err != nil:
					t.Errorf("round %d: a call Close interrupted failed with %v; want ErrManagerClosed or a killed command", round, o.err)
				case o.res.ExitCode != 137:
					t.Errorf("round %d: a call Close interrupted ended with exit %d; want 137", round, o.res.ExitCode)
				}
			case <-deadline:
				t.Fatalf("round %d: a sandbox started during Close still runs 10 s later", round)
			}
		}
	}
}

func TestNewManagerRefusesInvalidConfig(t *testing.T) {
	cfg := agentbox.DefaultConfig()
	cfg.Filesystem.WritableRoots = []string{"relative/path"}
	if _, err := agentbox.NewManager(cfg); !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Fatalf("got %v", err)
	}
}

// Legitimate work: a server the command starts on its own loopback is
// reachable, proxy variables and all, in the default filtered network.
func TestLocalServerInsideTheSandbox(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.DefaultConfig())
	res := run(t, m, `cd /tmp && echo served > index.html && (python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 &) &&
for i in $(seq 50); do curl -sf http://localhost:8765/index.html && exit 0; sleep 0.1; done; exit 1`)
	if res.ExitCode != 0 || res.Stdout != "served\n" {
		t.Fatalf("got %+v", res)
	}
}

// A read allow-list leaves nothing else in the sandbox's view: neither the
// mount layer nor Landlock lets a path outside it be read.
func TestReadAllowList(t *testing.T) {
	t.Parallel()
	allowed, other := hostDir(t), hostDir(t)
	for _, d := range []string{allowed, other} {
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("content of "+filepath.Base(d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := agentbox.CIConfig()
	cfg.Filesystem.AllowRead = []string{allowed}
	m := newManager(t, cfg)
	res := run(t, m, "cat "+allowed+"/f && ls /usr/bin/env && cat "+other+"/f", agentbox.WithWorkingDir(allowed))
	if !strings.Contains(res.Stdout, "content of "+filepath.Base(allowed)) || !strings.Contains(res.Stdout, "/usr/bin/env") {
		t.Fatalf("the allowed path or the system directories are not readable: %+v", res)
	}
	if res.ExitCode == 0 || strings.Contains(res.Stdout, "content of "+filepath.Base(other)) {
		t.Fatalf("a path outside the allow-list was read: %+v", res)
	}
	if res := run(t, m, "ls /home /root /var/tmp 2>&1; true", agentbox.WithWorkingDir(allowed)); strings.Contains(res.Stdout, filepath.Base(other)) {
		t.Fatalf("the allow-list view lists paths outside it: %+v", res)
	}
}

// TestRemovedWorkingDir: a caller whose current directory was removed gets
// a config error naming the working directory, not a command run from /.
// Not parallel: it changes the process's directory.
func TestRemovedWorkingDir(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	_, err := m.Exec(context.Background(), "pwd")
	var ce *agentbox.ConfigError
	if !errors.As(err, &ce) || ce.Field != "working directory" || !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Fatalf("Exec from a removed directory: %v", err)
	}
	res := run(t, m, "pwd", agentbox.WithWorkingDir(dir))
	if res.ExitCode != 0 || res.Stdout != dir+"\n" {
		t.Fatalf("with WithWorkingDir: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestDeniedDomainsNeedTheProxy: a call that switches to the host's network
// while the config denies domains is refused, rather than run with the
// deny list silently dropped; switching to blocked is fine.
func TestDeniedDomainsNeedTheProxy(t *testing.T) {
	t.Parallel()
	cfg := agentbox.CIConfig()
	cfg.Network.Mode = agentbox.NetworkFiltered
	cfg.Network.DeniedDomains = []string{"example.com"}
	m := newManager(t, cfg)
	_, err := m.Exec(context.Background(), "true", agentbox.WithNetwork(agentbox.NetworkAllowed))
	var ce *agentbox.ConfigError
	if !errors.As(err, &ce) || ce.Field != "WithNetwork" {
		t.Fatalf("the host's network with a deny list: %v", err)
	}
	if res := run(t, m, "true", agentbox.WithNetwork(agentbox.NetworkBlocked)); res.ExitCode != 0 {
		t.Fatalf("blocked: exit %d %q", res.ExitCode, res.Stderr)
	}
}
