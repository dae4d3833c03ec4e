//go:build linux

package agentbox_test

// Red-team session 6: the root package's library API as a host program that
// embeds agentbox uses it (Wrap, Start, Exec, Manager's life cycle).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/classify"
)

// rt6Listen is a host loopback service that reports the first bytes each
// connection sends.
func rt6Listen(t *testing.T) (net.Listener, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 256)
				n, _ := c.Read(buf)
				got <- string(buf[:n])
			}()
		}
	}()
	return l, got
}

// rt6Script writes a program into a directory the sandbox reads, so that
// the classifier (which only sees "python3 FILE") is not what is tested.
func rt6Script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(hostDir(t), "attack.py")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A host program hands the sandboxed command a TCP connection as its
// standard output (inetd style: conn.File()). The command may write to
// that connection (the control), but must not turn the socket of the host's
// network namespace into a way out of its own blocked network: a TCP socket
// can be disconnected (connect with AF_UNSPEC) and connected again anywhere,
// here to another host loopback service.
//
// Fixed: Start relays a socket through a pipe; Wrap lets os/exec relay one as Stdout/Stderr.
func TestRT6SocketStdioReconnect(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig()) // network blocked
	for _, api := range []string{"Wrap", "Start"} {
		t.Run(api, func(t *testing.T) {
			handed, fromHanded := rt6Listen(t)
			other, fromOther := rt6Listen(t)
			conn, err := net.Dial("tcp", handed.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			f, err := conn.(*net.TCPConn).File()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			script := rt6Script(t, `
import ctypes, socket, struct, sys, os
os.write(1, b"hello over the handed connection")
libc = ctypes.CDLL(None, use_errno=True)
sa = struct.pack("H14s", 0, b"")
print("disconnect", libc.connect(1, sa, len(sa)), ctypes.get_errno(), file=sys.stderr)
s = socket.socket(fileno=1)
s.settimeout(3)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.send(b"ESCAPED")
print("reconnected", file=sys.stderr)
`)
			var errb bytes.Buffer
			cmd := exec.Command("/usr/bin/python3", script, strconv.Itoa(other.Addr().(*net.TCPAddr).Port))
			cmd.Stdout, cmd.Stderr = f, &errb
			setup, run := runVia(m, api, cmd, agentbox.WithTimeout(15*time.Second))
			if setup != nil || api == "Start" && run != nil {
				t.Fatal(setup, run) // a Wrap'd command's exit status is its own
			}
			// The control: what the command wrote reached the handed
			// connection.
			select {
			case s := <-fromHanded:
				if s != "hello over the handed connection" {
					t.Fatalf("the handed connection got %q (stderr %s)", s, errb.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("the command's output never reached the handed connection (stderr %s)", errb.String())
			}
			select {
			case s := <-fromOther:
				t.Fatalf("a command of a blocked network reached another host loopback service through the socket it was handed as stdout: it got %q (stderr %s)", s, errb.String())
			case <-time.After(500 * time.Millisecond):
			}
		})
	}
}

// rt6WaitFor polls for a file the command writes.
func rt6WaitFor(t *testing.T, p string, d time.Duration) bool {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// rt6Waited waits for a started cmd in the background: the channel is
// closed when it has ended. The test's clean-up kills what is left.
func rt6Waited(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return done
}

// A host program calls Wrap's cleanup while the wrapped command still runs
// (a deferred cleanup on an early return, or a cmd.Wait skipped after an
// error). Whatever the caller's mistake, the sandbox must not go on
// running with what it holds released: its WithTimeout gone, no longer
// killed by the Manager's Close, and its protected names in the writable
// root (here .vscode, held by a placeholder) taken away, so that the
// command plants .vscode/tasks.json for the editor that opens the project
// next. Before the cleanup the same write fails (the control).
//
// Fixed: cleanup kills the tree and waits for the init first.
func TestRT6WrapCleanupWhileRunning(t *testing.T) {
	t.Parallel()
	m, err := agentbox.NewManager(agentbox.CIConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := hostDir(t)
	tasks := filepath.Join(dir, ".vscode", "tasks.json")
	cmd := exec.Command("/bin/sh", "-c", `cd "$1" || exit 9
if mkdir -p .vscode 2>/dev/null && echo '{"tasks":[]}' > .vscode/tasks.json 2>/dev/null; then echo early > planted-early; fi
echo started > started
while :; do
	sleep 0.05
	if mkdir -p .vscode 2>/dev/null && echo '{"tasks":[{"command":"evil"}]}' > .vscode/tasks.json 2>/dev/null; then echo > planted-late; fi
	echo alive > alive-after-cleanup.tmp && mv alive-after-cleanup.tmp alive
done`, "sh", dir)
	cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWritableRoots(dir), agentbox.WithTimeout(1500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		t.Fatal(err)
	}
	done := rt6Waited(t, cmd)
	if !rt6WaitFor(t, filepath.Join(dir, "started"), 5*time.Second) {
		cleanup()
		t.Fatal("the wrapped command never started")
	}
	// The control: while the sandbox holds .vscode, the command cannot make it.
	if _, err := os.Stat(filepath.Join(dir, "planted-early")); err == nil {
		cleanup()
		t.Fatal("the command wrote .vscode/tasks.json while the sandbox held .vscode")
	}
	cleanup() // too early
	_ = m.Close()
	os.Remove(filepath.Join(dir, "alive"))
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	if b, err := os.ReadFile(tasks); err == nil {
		t.Errorf("after Wrap's cleanup the still-running command planted %s on the host: %s", tasks, b)
	}
	if rt6WaitFor(t, filepath.Join(dir, "alive"), 300*time.Millisecond) {
		t.Errorf("the wrapped command still runs after its cleanup, the Manager's Close and its 1.5 s WithTimeout: none of them reaches it any more")
	}
}

// Wrap's ctx, "and WithTimeout, kill the sandbox's whole process tree when
// they end", and Close "kills what still runs". A host program that starts
// the wrapped cmd only after its ctx has ended (a request cancelled while
// it prepared the command), or after the Manager was closed (shutting
// down), must not get a sandbox that nothing bounds any more: the command
// must not run on, for as long as it likes, as exec.CommandContext refuses
// to start after its ctx is done. With a live ctx and Manager it runs to
// the end (the control).
//
// Fixed: Kill takes back the spec of an init not started yet.
func TestRT6WrapStartedAfterCtxOrClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		prepare func(cancel context.CancelFunc, m *agentbox.Manager)
		bounded bool
	}{
		{"live (control)", func(context.CancelFunc, *agentbox.Manager) {}, false},
		{"ctx cancelled", func(cancel context.CancelFunc, _ *agentbox.Manager) { cancel() }, true},
		{"manager closed", func(_ context.CancelFunc, m *agentbox.Manager) { _ = m.Close() }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := agentbox.NewManager(agentbox.CIConfig())
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			dir := hostDir(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.Command("/bin/sh", "-c", `echo started > "$1/started"; sleep 1; echo late > "$1/late"`, "sh", dir)
			cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWritableRoots(dir))
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			tc.prepare(cancel, m)
			time.Sleep(100 * time.Millisecond) // the watcher has seen it
			if err := cmd.Start(); err != nil {
				if tc.bounded {
					return // refused: held
				}
				t.Fatal(err)
			}
			done := rt6Waited(t, cmd)
			select {
			case <-done:
			case <-time.After(3 * time.Second):
			}
			_, err = os.Stat(filepath.Join(dir, "late"))
			switch {
			case !tc.bounded && err != nil:
				t.Fatalf("the control never finished: %v", err)
			case tc.bounded && err == nil:
				t.Errorf("%s before cmd.Start, yet the wrapped command ran to its end unbounded", tc.name)
			}
		})
	}
}

// Wrap with WithTimeout: the watcher that enforces the timeout waits for the
// sandbox to be ready, and asking the handle whether it is ready closes the
// parent's copy of the init's control socket. When the caller's cmd.Start
// comes after that (a host program that wraps first and starts a little
// later), the init is started without its control socket and fails
// (exit 125, "spec: socket operation on non-socket"): WithTimeout makes Wrap
// unusable unless Start follows at once. Without WithTimeout the same delay
// works (the control). (Fail-closed: a reliability bug, not an escape.)
//
// Fixed: a prepared handle's init files stay open until Close.
func TestRT6WrapTimeoutThenLateStart(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	for _, tc := range []struct {
		name string
		opts []agentbox.Option
	}{
		{"no timeout (control)", nil},
		{"WithTimeout", []agentbox.Option{agentbox.WithTimeout(10 * time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cmd := exec.Command("/bin/echo", "hello")
			cmd.Stdout, cmd.Stderr = &out, &errb
			cleanup, err := m.Wrap(context.Background(), cmd, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			time.Sleep(200 * time.Millisecond) // the host program prepares something else
			if err := cmd.Run(); err != nil || out.String() != "hello\n" {
				t.Errorf("wrapped, then started 200 ms later: %v, stdout %q, stderr %q", err, out.String(), errb.String())
			}
		})
	}
}

// A host program hands the command it wraps extra files (cmd.ExtraFiles):
// here descriptors of a file the call denies, opened on the host. None of
// them reaches the program, through Wrap or Start; the denied file stays
// unreadable by name too, and a file handed as stdin is read (the control).
// Wrap and Start now refuse such a cmd (TestExtraFilesRefused): the
// control then runs without them.
func TestRT6ExtraFilesDoNotLeak(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	secret := filepath.Join(dir, "secret")
	public := filepath.Join(dir, "public")
	if err := os.WriteFile(secret, []byte("TOPSECRET-rt6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, []byte("public-rt6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"Wrap", "Start"} {
		t.Run(api, func(t *testing.T) {
			sf, err := os.Open(secret)
			if err != nil {
				t.Fatal(err)
			}
			defer sf.Close()
			pf, err := os.Open(public)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			cmd := exec.Command("/bin/sh", "-c", `cat; for fd in 3 4 5 6 7 8 9; do cat /proc/self/fd/$fd 2>/dev/null; done; cat "$1" 2>/dev/null; true`, "sh", secret)
			cmd.ExtraFiles = []*os.File{sf, sf, sf}
			var out, errb bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = pf, &out, &errb
			for {
				err, _ := runVia(m, api, cmd, agentbox.WithDenyRead(secret))
				if errors.Is(err, agentbox.ErrConfigInvalid) && cmd.ExtraFiles != nil {
					cmd.ExtraFiles = nil // refused: nothing leaked
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			if strings.Contains(out.String()+errb.String(), "TOPSECRET") {
				t.Fatalf("a denied file handed in ExtraFiles reached the program: %q", out.String())
			}
			if !strings.Contains(out.String(), "public-rt6") {
				t.Fatalf("the control: the file handed as stdin was not read: %q", out.String())
			}
		})
	}
}

// A host program gives Start one writer for both streams, as with
// exec.Cmd's CombinedOutput idiom (cmd.Stdout = cmd.Stderr = &buf). os/exec
// promises that a writer given for both is written by one goroutine at a
// time; Start copies each stream in a goroutine of its own into it, so a
// command that writes both streams at once races the host program's
// bytes.Buffer (a data race in the host, driven by the untrusted command's
// timing): output is lost or turns into NUL bytes. The same command
// through Wrap, where os/exec does the copying, keeps every line (the
// control).
//
// Fixed: one pipe for both streams, as os/exec does.
func TestRT6StartSharedWriter(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	const n = 400
	script := `i=0; while [ $i -lt 400 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done`
	for _, api := range []string{"Wrap", "Start"} {
		t.Run(api, func(t *testing.T) {
			var buf bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Stdout, cmd.Stderr = &buf, &buf
			switch api {
			case "Wrap":
				cleanup, err := m.Wrap(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				err = cmd.Run()
				cleanup()
				if err != nil {
					t.Fatal(err)
				}
			default:
				p, err := m.Start(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				if res, err := p.Wait(); err != nil || res.ExitCode != 0 {
					t.Fatalf("%v %+v", err, res)
				}
			}
			out := buf.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if strings.ContainsRune(out, 0) || len(lines) != 2*n {
				t.Fatalf("%s with one writer for stdout and stderr: %d lines of %d, NUL bytes: %v; begins %q", api, len(lines), 2*n, strings.ContainsRune(out, 0), out[:min(len(out), 120)])
			}
		})
	}
}

// A host program that confines the command further itself, with
// cmd.SysProcAttr (here a chroot into an empty directory, so that it sees
// no file of the host), then wraps or starts it: agentbox replaces or
// ignores SysProcAttr without a word, and the program sees the host's
// whole tree (its /etc/passwd) the caller meant to hide. Either the layer
// the caller asked for is applied, or the call is refused; the command
// without SysProcAttr reads the file (the control).
//
// Fixed: a SysProcAttr that sets more than Setpgid and Pdeathsig is refused.
func TestRT6SysProcAttrNotDropped(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	jail := t.TempDir()
	for _, api := range []string{"Wrap", "Start"} {
		for _, confined := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/chroot=%v", api, confined), func(t *testing.T) {
				var out, errb bytes.Buffer
				cmd := exec.Command("/bin/cat", "/etc/passwd")
				cmd.Stdout, cmd.Stderr = &out, &errb
				if confined {
					cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: jail}
				}
				setup, run := runVia(m, api, cmd)
				err := errors.Join(setup, run)
				read := strings.Contains(out.String(), "root:")
				switch {
				case !confined && !read:
					t.Fatalf("the control could not read /etc/passwd: %v %q", err, errb.String())
				case confined && read:
					t.Errorf("%s dropped the caller's SysProcAttr.Chroot without a word: the command read the host's /etc/passwd", api)
				}
			})
		}
	}
}

// Exec bounds what it keeps of both streams, whatever the command writes:
// 256 MiB on each of stdout and stderr at once leaves 1,000 bytes of each,
// Truncated set, and the host's heap about where it was; a command that
// stays within the bound gets everything, not truncated (the control).
func TestRT6ExecOutputBoundBothStreams(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	res := run(t, m, "printf 'out\\n'; printf 'err\\n' >&2", agentbox.WithMaxOutputBytes(1000))
	if res.Stdout != "out\n" || res.Stderr != "err\n" || res.Truncated {
		t.Fatalf("the control: %+v", res)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res = run(t, m, "head -c 268435456 /dev/zero | tr '\\0' o & head -c 268435456 /dev/zero | tr '\\0' e >&2; wait",
		agentbox.WithMaxOutputBytes(1000), agentbox.WithTimeout(60*time.Second))
	runtime.ReadMemStats(&after)
	if len(res.Stdout) != 1000 || len(res.Stderr) != 1000 || !res.Truncated || res.ExitCode != 0 {
		t.Fatalf("stdout %d, stderr %d bytes, truncated %v, exit %d", len(res.Stdout), len(res.Stderr), res.Truncated, res.ExitCode)
	}
	if strings.Trim(res.Stdout, "o") != "" || strings.Trim(res.Stderr, "e") != "" {
		t.Fatalf("the streams were mixed: %.40q %.40q", res.Stdout, res.Stderr)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Fatalf("the host's heap grew by %d bytes for 512 MiB of discarded output", grew)
	}
}

// A command's child that closes its standard streams and detaches (its own
// session, re-parented to the init) ends with the command: when the
// program exits before its timeout, and when WithTimeout kills it. The
// command's own write before it ends reaches the host (the control).
func TestRT6DetachedChildEnds(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	for _, tc := range []struct {
		name, tail string
		timeout    time.Duration
	}{
		{"program exits", "exit 0", 30 * time.Second},
		{"timeout", "sleep 30", 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostDir(t)
			cmd := `d="$1"; (setsid sh -c 'exec </dev/null >/dev/null 2>&1; sleep 1.5; echo escaped > "$0/late"' "$d" &) ; echo ok > "$d/own"; ` + tc.tail
			start := time.Now()
			res, err := m.ExecArgs(context.Background(), "/bin/sh", []string{"-c", cmd, "sh", dir},
				agentbox.WithWritableRoots(dir), agentbox.WithTimeout(tc.timeout))
			if tc.name == "timeout" && (res == nil || !res.TimedOut) {
				t.Fatalf("not timed out: %v %+v", err, res)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the call took %v", time.Since(start))
			}
			if b, err := os.ReadFile(filepath.Join(dir, "own")); err != nil || string(b) != "ok\n" {
				t.Fatalf("the control: the command's own write is missing: %q %v", b, err)
			}
			time.Sleep(2500 * time.Millisecond)
			if b, err := os.ReadFile(filepath.Join(dir, "late")); err == nil {
				t.Fatalf("a detached child outlived its command (%s) and wrote %q", tc.name, b)
			}
		})
	}
}

// One call may write W and plants the link W/sub to a directory of the
// host's /tmp (which every sandbox replaces with its own, but in which a
// working directory is shown to the sandbox). ExecArgs with
// WithWorkingDir(W/sub), and Wrap with cmd.Dir = W/sub, are refused as
// going through a link a command could have planted (the controls), but
// the same cmd.Dir is not checked by Start, nor by Wrap or Start when
// WithWorkingDir also names another directory: the command is shown the
// host's /tmp directory and reads its files. A real directory as cmd.Dir
// works (the control).
//
// Fixed: cmd.Dir is checked as WithWorkingDir is.
func TestRT6CmdDirThroughPlantedLink(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	w := hostDir(t)
	victim, err := os.MkdirTemp("/tmp", "rt6lib-victim-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(victim) })
	if err := os.Chmod(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "secret"), []byte("HOST-TMP-SECRET-rt6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real := hostDir(t)
	if err := os.WriteFile(filepath.Join(real, "secret"), []byte("plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(w, "sub")
	if res, err := m.ExecArgs(context.Background(), "/bin/ln", []string{"-s", victim, sub}, agentbox.WithWritableRoots(w)); err != nil || res.ExitCode != 0 {
		t.Fatalf("planting the link: %v %+v", err, res)
	}
	if _, err := m.ExecArgs(context.Background(), "/bin/cat", []string{"secret"}, agentbox.WithWorkingDir(sub)); !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Fatalf("the control: WithWorkingDir through the planted link was not refused: %v", err)
	}
	for _, tc := range []struct {
		api, dir string
		opts     []agentbox.Option
		refused  bool // the control: refused as it is today
	}{
		{"Wrap", sub, nil, true},
		{"Start", real, nil, false},
		{"Start", sub, nil, false},
		{"Start", sub, []agentbox.Option{agentbox.WithWorkingDir("/")}, false},
		{"Wrap", sub, []agentbox.Option{agentbox.WithWorkingDir("/")}, false},
	} {
		kind := "planted-link"
		if tc.dir == real {
			kind = "real-dir"
		}
		name := fmt.Sprintf("%s/%s/WithWorkingDir=%v", tc.api, kind, len(tc.opts) > 0)
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cmd := exec.Command("/bin/cat", "secret")
			cmd.Dir = tc.dir
			cmd.Stdout, cmd.Stderr = &out, &errb
			var err error
			switch tc.api {
			case "Wrap":
				var cleanup func()
				if cleanup, err = m.Wrap(context.Background(), cmd, tc.opts...); err == nil {
					_ = cmd.Run()
					cleanup()
				}
			default:
				var p *agentbox.Process
				if p, err = m.Start(context.Background(), cmd, tc.opts...); err == nil {
					_, err = p.Wait()
				}
			}
			switch {
			case tc.refused:
				if !errors.Is(err, agentbox.ErrConfigInvalid) {
					t.Fatalf("the control: not refused: %v (stdout %q)", err, out.String())
				}
			case tc.dir == real:
				if out.String() != "plain\n" {
					t.Fatalf("the control: a real directory as cmd.Dir: %v %q %q", err, out.String(), errb.String())
				}
			case strings.Contains(out.String(), "HOST-TMP-SECRET"):
				t.Errorf("%s with cmd.Dir through a link planted by an earlier sandbox read the host's /tmp: %q", name, out.String())
			}
		})
	}
}

// A host program sets its own classifier in the Config (here one that
// forbids "echo rt6-forbidden*", standing for the host's own policy, such
// as forbidding git push), or per call with WithClassifier. A per-call
// option that sounds additive (WithDefaultProtectedPaths: "escalates writes
// aimed at the protected paths for this call", or WithCustomRules,
// WithRuleOverrides) builds a classifier of the built-in rules instead, and
// the host's classifier is silently not asked: its forbidden command runs.
// Without the per-call option it is refused (the control).
//
// Fixed: the two classifiers judge side by side; the more severe verdict stands.
func TestRT6PerCallClassifierOptionKeepsHostClassifier(t *testing.T) {
	t.Parallel()
	strict, err := classify.New(classify.WithCustomRules(classify.UserRule{Pattern: "echo rt6-forbidden*", Decision: classify.Forbidden}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := agentbox.CIConfig()
	cfg.Classifier = strict
	m := newManager(t, cfg)
	plain := newManager(t, agentbox.CIConfig())
	const command = "echo rt6-forbidden"
	if _, err := m.Exec(context.Background(), command); !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Fatalf("the control: the Config's classifier did not refuse: %v", err)
	}
	if _, err := plain.Exec(context.Background(), command, agentbox.WithClassifier(strict)); !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Fatalf("the control: WithClassifier did not refuse: %v", err)
	}
	for _, tc := range []struct {
		name string
		m    *agentbox.Manager
		opts []agentbox.Option
	}{
		{"Config.Classifier+WithDefaultProtectedPaths", m, []agentbox.Option{agentbox.WithDefaultProtectedPaths()}},
		{"Config.Classifier+WithCustomRules", m, []agentbox.Option{agentbox.WithCustomRules(classify.UserRule{Pattern: "rm -rf /*", Decision: classify.Forbidden})}},
		{"WithClassifier+WithDefaultProtectedPaths", plain, []agentbox.Option{agentbox.WithClassifier(strict), agentbox.WithDefaultProtectedPaths()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.m.Exec(context.Background(), command, tc.opts...)
			if !errors.Is(err, agentbox.ErrForbiddenCommand) {
				out := ""
				if res != nil {
					out = res.Stdout
				}
				t.Errorf("the host's classifier was not asked: %v, the forbidden command ran and printed %q", err, out)
			}
		})
	}
}

// A host program hands its own files to the wrapped command as they are: a
// world-writable input file as stdin (opened read-only) and, as stdout, a
// log opened append-only in a directory the call denies. Reopening them
// through /proc/self/fd for the access the caller did not give (writing the
// input, reading the log's earlier contents) is refused; writing the log
// and reading the input through the descriptors themselves works (the
// controls).
func TestRT6HandedFilesNotReopenedWider(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	denied := filepath.Join(dir, "denied")
	if err := os.Mkdir(denied, 0o777); err != nil {
		t.Fatal(err)
	}
	logPath, inPath := filepath.Join(denied, "log"), filepath.Join(dir, "input")
	for _, f := range []struct{ p, s string }{{logPath, "EARLIER-SECRET-rt6\n"}, {inPath, "input-rt6\n"}} {
		if err := os.WriteFile(f.p, []byte(f.s), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f.p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(denied, 0o777); err != nil {
		t.Fatal(err)
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	in, err := os.Open(inPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var errb bytes.Buffer
	// The reopen for reading comes first and does not wait: where stdout
	// is a pipe the program holds its write end itself, and would read
	// its own output (or wait for its end) after cat. The reopens for
	// writing come after cat has read its stdin.
	const reopen = `import os, sys
for path, mode in ((("/proc/self/fd/1", "rb"),) if sys.argv[1] == "read" else (("/proc/self/fd/0", "wb"), ("/proc/self/fd/0", "ab"))):
    try:
        if "r" in mode:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            os.write(2, os.read(fd, 4096))
            os.close(fd)
        else:
            with open(path, mode) as f:
                f.write(b"OVERWRITTEN")
    except OSError as e:
        os.write(2, repr(e).encode() + b"\n")
`
	script := filepath.Join(dir, "reopen.py")
	if err := os.WriteFile(script, []byte(reopen), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", "python3 "+script+" read; cat; python3 "+script+" write")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, logf, &errb
	cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithDenyRead(denied))
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Run()
	cleanup()
	if err != nil {
		t.Fatalf("%v %s", err, errb.String())
	}
	if strings.Contains(errb.String(), "EARLIER-SECRET") {
		t.Errorf("the log handed append-only as stdout was reopened for reading: %q", errb.String())
	}
	if b, _ := os.ReadFile(inPath); string(b) != "input-rt6\n" {
		t.Errorf("the file handed read-only as stdin was reopened for writing: %q", b)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "EARLIER-SECRET-rt6\ninput-rt6\n" {
		t.Errorf("the control: the command's output through its stdout: %q", b)
	}
}
