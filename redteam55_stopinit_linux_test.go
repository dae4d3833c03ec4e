//go:build linux

package agentbox_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt55bLines collects the lines a started program prints on a pipe.
type rt55bLines struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func rt55bCollect(r *os.File) *rt55bLines {
	l := &rt55bLines{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
		}
	}()
	return l
}

// count returns how many lines start with prefix.
func (l *rt55bLines) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// await waits up to d for a line starting with prefix.
func (l *rt55bLines) await(prefix string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if l.count(prefix) > 0 {
			return true
		}
	}
	return false
}

// rt55bEnvReader reads the deny-read .env of its working directory (a
// writable root) every 20 ms, printing a tick each round and, if it ever
// reads the host's secret, READ: and a copy in leaked.
const rt55bEnvReader = `while :; do c=$(cat .env 2>/dev/null); case "$c" in *SECRET*) echo "READ:$c"; echo "$c" > leaked;; esac; echo tick; sleep 0.02; done`

// rt55bStateOf is the state letter of /proc/PID/stat (R, S, T, ...).
func rt55bStateOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "?"
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return "?"
	}
	return s[i+2 : i+3]
}

// TestRedteam55SignalStopFreezesInitNotProgram: Process.Signal says it
// "forwards sig to the program's process group inside the sandbox", and
// the init forwards only the signals it catches (sandbox/linux/reap.go
// forwardedSignals: HUP INT QUIT TERM USR1 USR2 WINCH CONT ALRM).
// handle.Signal (sandbox/linux/handle.go) sends every other signal to the
// init itself (forkedProc.signal: pidfd_send_signal to pid 1 of the
// sandbox). SIGSTOP, which nothing can catch, and SIGTSTP, which the init
// does not catch (default action: stop), therefore stop the init, not the
// program: a caller that pauses its agent's command with
// p.Signal(syscall.SIGSTOP) (as it would pause an exec.Cmd) leaves the
// program running on, unpaused, while everything the init does for the
// sandbox is frozen with it. Among that, the mount watch
// (sandbox/linux/mountwatch.go), the only thing that keeps a deny-read
// path inside a writable root hidden once a host program renames a file
// over it (Landlock grants the writable root whole; README: "it kills
// the program's process group and the whole pid namespace at once", a
// race of microseconds): with the init stopped, the mask is detached and
// nothing kills the program, which reads the host's new content for as
// long as the pause lasts (and writes it into its writable root).
//
// The attack: a program in a writable root whose .env is denied polls
// .env; the caller pauses it with p.Signal(SIGSTOP); the program's ticks
// go on (it was not paused: premise one); a host program rewrites .env
// atomically (write a temporary file, rename it over .env: an editor's,
// dotenv tooling's or `sed -i`'s way) with a secret; the program reads
// the secret and copies it into the writable root.
//
// Severity: high (a deny-read file read), given a caller that pauses a
// Process by signal; also medium on its own: a pause that does not pause
// (the command keeps writing and connecting while its caller believes it
// stopped). Fix: have Signal refuse, or deliver to the program's group,
// the signals the init does not forward (SIGSTOP and SIGTSTP to the
// program's group by the init, for instance, which catches SIGTSTP and
// asks for the rest over the control socket), so the init never stops.
//
// Controls: without the pause, the same host rename ends the program
// (exit 137, mount-detached) before it reads the secret; SIGUSR1 reaches
// the program (its trap prints), so forwarding works.
//
// Found by red-team round 55. Fixed: sandbox/linux/handle.go (Signal sends
// a signal the init does not forward through it: msgSignal).
func TestRedteam55SignalStopFreezesInitNotProgram(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	start := func(script string) (*agentbox.Process, *rt55bLines, string) {
		dir := hostDir(t)
		_ = os.Chmod(dir, 0o777)
		env := filepath.Join(dir, ".env")
		if err := os.WriteFile(env, []byte("OLD=public\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Stdout = w
		p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir),
			agentbox.WithDenyRead(env), agentbox.WithTimeout(20*time.Second))
		w.Close()
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		l := rt55bCollect(r)
		if !l.await("tick", 5*time.Second) {
			_ = p.Kill()
			p.Wait()
			t.Fatalf("premise: the program does not run (no tick)")
		}
		return p, l, dir
	}
	hostRewrite := func(dir string) {
		tmp := filepath.Join(dir, ".env.tmp")
		if err := os.WriteFile(tmp, []byte("API_KEY=SECRET-rt55b\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, ".env")); err != nil {
			t.Fatal(err)
		}
	}

	// Control: forwarding works for a signal the init catches.
	p, l, _ := start(`trap 'echo GOT-USR1' USR1; ` + rt55bEnvReader)
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if !l.await("GOT-USR1", 3*time.Second) {
		t.Errorf("control: SIGUSR1 did not reach the program")
	}
	if l.count("READ:") > 0 {
		t.Fatalf("premise: the deny-read .env was readable before any rename")
	}
	_ = p.Kill()
	p.Wait()

	// Control: without a pause, the host's rename ends the program first.
	p, l, dir := start(rt55bEnvReader)
	time.Sleep(100 * time.Millisecond)
	hostRewrite(dir)
	res, err := p.Wait()
	t.Logf("control (no pause): exit %d, err %v, violations %+v", res.ExitCode, err, res.Violations)
	if l.count("READ:") > 0 {
		t.Fatalf("control: the program read the host's new .env even without a pause (the watch's race): %q", l.lines)
	}
	if res.ExitCode != 137 {
		t.Errorf("control: the host rename did not end the program (exit %d)", res.ExitCode)
	}

	// The attack: pause, then the host's rename.
	p, l, dir = start(rt55bEnvReader)
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("Signal(SIGSTOP): %v", err)
	}
	time.Sleep(150 * time.Millisecond)
	before := l.count("tick")
	time.Sleep(300 * time.Millisecond)
	after := l.count("tick")
	initState := rt55bStateOf(p.Pid())
	t.Logf("after SIGSTOP: ticks %d -> %d in 300 ms; the init (pid %d) is in state %s", before, after, p.Pid(), initState)
	paused := after == before
	hostRewrite(dir)
	read := l.await("READ:", 2*time.Second)
	_ = p.Signal(syscall.SIGCONT)
	_ = p.Kill()
	res, err = p.Wait()
	t.Logf("attack: exit %d, err %v, violations %+v", res.ExitCode, err, res.Violations)
	leaked, _ := os.ReadFile(filepath.Join(dir, "leaked"))
	if !paused {
		t.Errorf("ESCAPE: p.Signal(SIGSTOP) did not pause the program: it printed %d more ticks in 300 ms (the init, state %s, was stopped instead)", after-before, initState)
	}
	if read || strings.Contains(string(leaked), "SECRET") {
		t.Errorf("ESCAPE: with the init stopped by p.Signal(SIGSTOP), the host's rename over the deny-read .env detached its mask and nothing ended the program: it read %q and wrote it into its writable root (leaked: %q)", strings.Join(rt55bFilter(l, "READ:"), " "), strings.TrimSpace(string(leaked)))
	}
}

func rt55bFilter(l *rt55bLines, prefix string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// TestRedteam55WrapStoppedInitOutlivesTimeoutAndCleanup: the same root
// cause through Wrap, where cmd.Process is the init (Wrap: "cmd.Process
// stays the caller's alone") and every way agentbox ends a wrapped
// sandbox is a message the init must read: handle.Kill for Prepare's
// handle is killPrepared -> askKill, a msgKill on the control socket
// (sandbox/linux/handle.go), used by Wrap's WithTimeout and ctx
// (Manager.watch), by Cleanup and by Close (wrapped.Kill). A caller that
// pauses the wrapped command the exec.Cmd way
// (cmd.Process.Signal(syscall.SIGSTOP), or kill(-pgid, SIGSTOP) with
// the Setpgid that Wrap accepts) stops the init and not the program; from
// then on no timeout, ctx, Cleanup or Close can end the program: it runs
// on, writing its writable root, past its WithTimeout and past Cleanup's
// (and Close's, after closeReclaim, 8 s) return, until the caller itself
// exits. (Start's sandboxes die by SIGKILL to the init, which a stop does
// not block.)
//
// Severity: medium (the kill switch and the duration limit do not end a
// wrapped command: invariant 6, "Kill means gone"), given a caller that
// pauses. Fix: as above (the init never stops: the caller's SIGSTOP and
// SIGTSTP go to the program's group), and a Kill that, when the init does
// not answer within a bound, SIGKILLs it (the pid namespace then ends the
// tree).
//
// Control: the same wrapped program, not paused, is ended by its 400 ms
// WithTimeout and never writes LATE.
//
// Found by red-team round 55. Fixed: sandbox/linux/handle.go (a Kill of a
// Prepare'd init wakes it with SIGCONT, through a pidfd the init sends
// with msgReady, so that it reads the kill). The mount watch still stops
// with an init the caller stopped: README.
func TestRedteam55WrapStoppedInitOutlivesTimeoutAndCleanup(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	type outcome struct {
		ranOn bool // still ticking after the timeout and Cleanup
		late  bool // wrote LATE past its bound
		ticks int
	}
	runOne := func(pause bool) outcome {
		dir := hostDir(t)
		_ = os.Chmod(dir, 0o777)
		ticks := filepath.Join(dir, "ticks")
		// A tick into the writable root every 50 ms; LATE 1.5 s in.
		script := `i=0; while :; do echo tick >> ticks; i=$((i+1)); if [ $i -eq 30 ]; then echo LATE > late; fi; sleep 0.05; done`
		cmd := exec.Command("/bin/sh", "-c", script)
		cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir),
			agentbox.WithTimeout(400*time.Millisecond))
		if err != nil {
			t.Fatalf("Wrap: %v", err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("cmd.Start: %v", err)
		}
		count := func() int {
			b, _ := os.ReadFile(ticks)
			return strings.Count(string(b), "tick")
		}
		for end := time.Now().Add(5 * time.Second); count() == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("premise: the wrapped program does not run")
			}
		}
		if pause {
			if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatalf("pause: %v", err)
			}
		}
		time.Sleep(1700 * time.Millisecond) // the timeout (400 ms) long past
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cerr := m.Cleanup(ctx)
		cancel()
		n := count()
		time.Sleep(300 * time.Millisecond)
		var o outcome
		o.ticks = count()
		o.ranOn = o.ticks > n
		_, statErr := os.Stat(filepath.Join(dir, "late"))
		o.late = statErr == nil
		// The test's own end of it: resumed, the init reads its msgKill.
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		cleanup()
		t.Logf("paused=%v: ticks %d, still ticking after the timeout and Cleanup (%v)=%v, wrote LATE=%v", pause, o.ticks, cerr, o.ranOn, o.late)
		return o
	}
	if c := runOne(false); c.ranOn || c.late || c.ticks > 14 {
		t.Fatalf("control: a wrapped program outlived its 400 ms timeout without a pause: %+v", c)
	}
	if o := runOne(true); o.ranOn || o.late {
		t.Errorf("ESCAPE: a wrapped program whose init the caller paused (cmd.Process.Signal(SIGSTOP)) ran on unpaused past its 400 ms WithTimeout and past Manager.Cleanup: still writing its writable root after Cleanup returned %v (%d ticks), wrote LATE at 1.5 s %v", o.ranOn, o.ticks, o.late)
	}
}
