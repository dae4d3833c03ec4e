//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestForkBomb forks until the kernel refuses, under a small process limit,
// and checks the bomb stays below the limit, the host can still fork, and
// the whole tree is gone when the sandbox ends.
func TestForkBomb(t *testing.T) {
	t.Parallel()
	const limit = 48
	cfg := ciConfig()
	cfg.ResourceLimits.MaxProcesses = limit
	m := newManager(t, cfg)
	goFile := filepath.Join(newDir(t, 0o755), "go")
	ps := []probe{
		attack("forkbomb", "forkbomb", "EAGAIN"),
		control("wait", "waitexist:"+goFile, ""),
	}
	run := startProbes(t, m, ps, nil)
	line := run.waitLine(t, "RESULT forkbomb ")
	tree := descendants(run.p.Pid())
	if len(tree) > limit+1 { // the processes below the init, plus the init
		t.Errorf("ESCAPE: %d processes in the sandbox with a limit of %d (%s)", len(tree), limit, line)
	}
	if len(tree) < limit/4 {
		t.Errorf("the bomb only got %d processes (%s): it did not really run", len(tree), line)
	}
	if err := exec.Command("/bin/true").Run(); err != nil {
		t.Errorf("the host cannot fork during the bomb: %v", err)
	}
	writeFile(t, goFile, "", 0o644)
	run.check(t, ps)
	if left := waitGone(tree, time.Second); len(left) > 0 {
		t.Errorf("ESCAPE: %d processes of the bomb outlived the sandbox: %v", len(left), left)
	}
}

// TestInotifyBomb makes inotify instances until the kernel refuses and
// holds them. Each also counts against the per-user limit of the user the
// sandbox runs as (128 by default): the sandbox must get at most a quarter
// of it, and the host user must still get one while the bomb holds its own.
func TestInotifyBomb(t *testing.T) {
	t.Parallel()
	global, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		t.Skipf("no inotify limit here: %v", err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(global)))
	if err != nil {
		t.Fatal(err)
	}
	userCountBomb(t, "inotifybomb", "EMFILE", "inotify instances", limit, func() error {
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
}

// TestSignalQueueBomb queues real-time signals inside until the kernel
// refuses and keeps them pending. They count against the pending-signal
// limit of the user who started the sandbox too: the sandbox must get at
// most a quarter of it, and a host process of that user must still queue
// one while the bomb holds its own.
func TestSignalQueueBomb(t *testing.T) {
	t.Parallel()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_SIGPENDING, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur == unix.RLIM_INFINITY || lim.Cur < 64 {
		t.Skipf("pending-signal limit %d: nothing to share here", lim.Cur)
	}
	userCountBomb(t, "rtsigbomb", "EAGAIN", "pending signals", int(lim.Cur), func() error {
		// Another process of the caller's user, outside.
		out, err := exec.Command(attackerBin, "victim=rtsigbomb:1").Output()
		if err == nil && !strings.Contains(string(out), "RESULT victim allowed") {
			err = fmt.Errorf("%s", out)
		}
		return err
	})
}

// userCountBomb runs the attacker's probe bomb in a sandbox: it takes a
// kernel object counted per user (against limit) until the kernel refuses
// with errno, reports "held N" and keeps what it got. The sandbox must get
// between an eighth and a quarter of limit, and victim (the caller's user
// taking one more on the host) must succeed while the bomb holds its own.
func userCountBomb(t *testing.T, bomb, errno, what string, limit int, victim func() error) {
	t.Helper()
	goFile := filepath.Join(newDir(t, 0o755), "go")
	ps := []probe{
		attack(bomb, bomb, errno),
		control("wait", "waitexist:"+goFile, ""),
	}
	run := startProbes(t, ciMgr, ps, nil)
	line := run.waitLine(t, "RESULT "+bomb+" ")
	var got int
	if _, err := fmt.Sscanf(line[strings.Index(line, `"held `):], `"held %d"`, &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if got > limit/4 || got < limit/8 {
		t.Errorf("the sandbox held %d %s; want at most %d, a quarter of the per-user %d (%s)", got, what, limit/4, limit, line)
	}
	if err := victim(); err != nil {
		t.Errorf("the host user gets none of the %s while the sandbox holds its own: %v", what, err)
	}
	writeFile(t, goFile, "", 0o644)
	run.check(t, ps)
}

// TestRealTimeScheduling gives the caller the real-time and priority
// limits limits.conf gives the audio group on many desktops, and has the
// sandbox try SCHED_FIFO (a busy loop would then take a CPU from
// everything else) and a raised priority. The control: the sandbox runs.
// Not parallel: it raises the test process's own limits while it runs.
func TestRealTimeScheduling(t *testing.T) {
	for _, l := range []struct {
		res int
		v   uint64
	}{{unix.RLIMIT_RTPRIO, 50}, {unix.RLIMIT_NICE, 30}} {
		var old unix.Rlimit
		if err := unix.Getrlimit(l.res, &old); err != nil {
			t.Fatal(err)
		}
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: l.v, Max: l.v}); err != nil {
			t.Skipf("cannot raise the caller's limit %d here: %v", l.res, err)
		}
		t.Cleanup(func() { _ = unix.Setrlimit(l.res, &old) })
	}
	cfg := ciConfig()
	cfg.ColdStart = true // an init started now inherits the raised limits
	m := newManager(t, cfg)
	runProbes(t, m, []probe{
		control("own_hostname", "hostname", "agentbox"),
		attack("sched_fifo", "rtsched", "EPERM"),
		attack("raise_priority", "renice", "EACCES", "EPERM"),
	})
}

// TestShellForkBomb runs the classic bash fork bomb under a small process
// limit and a timeout: the call must come back, the bomb must have met the
// limit, and the host must be fine.
func TestShellForkBomb(t *testing.T) {
	t.Parallel()
	cfg := ciConfig()
	cfg.ResourceLimits.MaxProcesses = 64
	m := newManager(t, cfg)
	start := time.Now()
	res, err := m.ExecArgs(context.Background(), "/bin/bash", []string{"-c", ":(){ :|:& };:; sleep 30"},
		agentbox.WithTimeout(2*time.Second), agentbox.WithWorkingDir("/"))
	if err != nil && !errors.Is(err, agentbox.ErrTimeout) {
		t.Fatalf("fork bomb run: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the fork bomb held the call for %v", d)
	}
	// Either the bomb ran until the timeout killed the tree, or the limit
	// made the top-level shell give up forking (bash exits 2 when a fork
	// still fails after its retries, or when a signal cuts their wait short),
	// which ends the sandbox too. Anything else means something other than
	// the limit stopped it.
	gaveUp := res.ExitCode == 2 && !res.TimedOut && strings.Contains(res.Stderr, "fork: retry: Resource temporarily unavailable")
	if !(res.ExitCode == 137 && res.TimedOut) && !gaveUp {
		t.Errorf("fork bomb: exit %d, timed out %v; want 137 by the timeout, or bash giving up on a refused fork\nstderr: %.500s",
			res.ExitCode, res.TimedOut, res.Stderr)
	}
	if err := exec.Command("/bin/true").Run(); err != nil {
		t.Errorf("the host cannot fork after the bomb: %v", err)
	}
}

// memoryCgroup reports whether layers claim a cgroup memory limit.
func memoryCgroup(layers []string) bool {
	for _, l := range layers {
		if strings.HasPrefix(l, "cgroup(") && strings.Contains(l, "memory") {
			return true
		}
	}
	return false
}

// TestMemoryBomb allocates beyond a memory limit four ways, one sandbox
// each: private memory in one process (what RLIMIT_DATA counts), shared
// anonymous memory and a memfd (which it does not count), and several
// processes each under the limit but together above it. The kernel may
// refuse the memory or kill the sandbox (exit 137); the bomb must not get
// it all. Where agentbox reports no cgroup memory layer, it promises only
// the per-process limit, so for the last three the test then checks that
// the limitation is reported (and logs what the bomb got).
func TestMemoryBomb(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		// The init (this binary) applies RLIMIT_DATA to itself before it
		// starts the program, and the race detector's shadow memory
		// already exceeds any limit small enough to bomb quickly: the
		// sandbox cannot start (see the report on init and small limits).
		t.Skip("the race detector's shadow memory counts against RLIMIT_DATA in the sandbox's init")
	}
	// Not much smaller: the sandbox's init applies the limit to itself
	// (RLIMIT_DATA), and in a program linked with cgo, like this test
	// binary, its thread stacks already use about 100 MiB.
	const limitMiB = 192
	cfg := ciConfig()
	cfg.ResourceLimits.MaxMemoryBytes = limitMiB << 20
	m := newManager(t, cfg)
	over := strconv.Itoa(limitMiB + 64)
	cases := []struct {
		name, spec string
		perProcess bool // bounded by RLIMIT_DATA alone
	}{
		{"private", "membomb:" + over, true},
		{"shared_anonymous", "shmbomb:" + over, false},
		{"memfd", "memfdbomb:" + over, false},
		{"many_processes", "manyalloc:4|" + strconv.Itoa(limitMiB/2), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ps := []probe{control("alloc_quarter", "alloc:"+strconv.Itoa(limitMiB/4), "MiB"), attack("bomb", c.spec)}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := m.ExecArgs(ctx, attackerBin, probeArgs(ps), agentbox.WithWorkingDir("/"))
			if err != nil {
				t.Fatalf("the sandbox could not run the attacker: %v", err)
			}
			o := parseOutput(res.Stdout)
			t.Logf("layers %q; exit %d; output:\n%s", res.Layers, res.ExitCode, res.Stdout)
			checkOne(t, ps[0], o.results["alloc_quarter"])
			bomb, reported := o.results["bomb"]
			switch {
			case !reported && res.ExitCode == 137:
				// Killed by the kernel (out of memory in its cgroup): bounded.
			case !reported:
				t.Fatalf("the bomb ended without a result, exit %d:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
			case bomb.verdict == blocked:
				if held := heldMiB(bomb.detail); held > limitMiB {
					t.Errorf("ESCAPE: the %s bomb held %d MiB under a %d MiB limit before it failed", c.name, held, limitMiB)
				}
			case c.perProcess || memoryCgroup(res.Layers):
				t.Errorf("ESCAPE: %s bomb past a %d MiB limit (layers %q): %s", c.name, limitMiB, res.Layers, bomb.detail)
			default:
				t.Logf("NOT BOUNDED (reported: no cgroup memory layer): %s bomb past a %d MiB limit: %s", c.name, limitMiB, bomb.detail)
			}
		})
	}
}

// heldMiB reads "held N MiB" from a bomb's detail (0 if absent).
func heldMiB(detail string) int {
	var n int
	if i := strings.Index(detail, "held "); i >= 0 {
		fmt.Sscanf(detail[i:], "held %d", &n)
	}
	return n
}

// sandboxTree starts script in a sandbox, waits for it to print "ready" and
// returns the process and its host process tree. The script's standard
// input is a pipe that release closes.
func sandboxTree(t *testing.T, script string, opts ...agentbox.Option) (p *agentbox.Process, tree []task, release func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	in, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Stdin: in, Stdout: w, Stderr: os.Stderr}
	opts = append([]agentbox.Option{agentbox.WithWorkingDir("/")}, opts...)
	p, err = ciMgr.Start(context.Background(), cmd, opts...)
	w.Close()
	in.Close()
	if err != nil {
		r.Close()
		inW.Close()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { inW.Close(); _ = p.Kill(); _, _ = p.Wait() })
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("sandboxed script said %q", line)
	}
	tree = descendants(p.Pid())
	if len(tree) < 4 {
		t.Fatalf("expected the init, the shell and several sleeps, got %v", tree)
	}
	return p, tree, func() { inW.Close() }
}

// treeScript leaves a background sleep, a daemonised sleep in its own
// session that ignores SIGTERM and SIGHUP, and a foreground sleep.
const treeScript = `sleep 300 & (setsid sh -c 'trap "" TERM HUP; sleep 300' &); echo ready; `

// TestTimeoutKillsTree: a timeout ends the call with exit 137 and
// ErrTimeout, and takes the whole tree with it.
func TestTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	p, tree, _ := sandboxTree(t, treeScript+"sleep 300", agentbox.WithTimeout(1500*time.Millisecond))
	res, err := p.Wait()
	if !errors.Is(err, agentbox.ErrTimeout) || res == nil || res.ExitCode != 137 || !res.TimedOut {
		t.Fatalf("timeout: err %v, result %+v; want ErrTimeout, exit 137, TimedOut", err, res)
	}
	if left := waitGone(tree, 200*time.Millisecond); len(left) > 0 {
		t.Errorf("ESCAPE: processes outlived the timeout: %v", left)
	}
}

// TestExitKillsBackground: when the program exits, what it left running in
// the background (even daemonised) dies with the sandbox.
func TestExitKillsBackground(t *testing.T) {
	t.Parallel()
	p, tree, release := sandboxTree(t, treeScript+"read line; exit 7")
	release()
	res, err := p.Wait()
	if err != nil || res.ExitCode != 7 {
		t.Fatalf("exit: %v, %+v; want exit 7", err, res)
	}
	if left := waitGone(tree, 200*time.Millisecond); len(left) > 0 {
		t.Errorf("ESCAPE: background processes outlived the program: %v", left)
	}
}

// TestAgentboxKilled SIGKILLs the program that uses the library (this test
// binary, re-executed as a small agentbox host) while its sandbox runs a
// tree of sleeps; everything it started must be gone within a second.
func TestAgentboxKilled(t *testing.T) {
	t.Parallel()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holderEnv+"=1")
	holder.Stderr = os.Stderr
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	var initPid int
	if _, err := fmt.Sscanf(line, "READY %d", &initPid); err != nil {
		t.Fatalf("holder said %q", line)
	}
	all := descendants(holder.Process.Pid)
	tree := all[1:] // everything below the holder
	forker, _, _, _, _ := procStat(initPid)
	if a := arg0(forker); a != forkerArg0 {
		t.Fatalf("the sandbox's init %d has parent %d (%q): want the Manager's forker", initPid, forker, a)
	}
	if ppid, _, _, _, _ := procStat(forker); ppid != holder.Process.Pid {
		t.Fatalf("the forker %d has parent %d: want the holder %d", forker, ppid, holder.Process.Pid)
	}
	if len(descendants(initPid)) < 4 {
		t.Fatalf("expected the init, the shell and several sleeps below %d, got %v", initPid, all)
	}
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	if left := waitGone(tree, time.Second); len(left) > 0 {
		t.Errorf("ESCAPE: %d processes outlived the SIGKILLed agentbox by a second: %v", len(left), left)
	}
}

// TestExitCodes: the program's own status, 128+N for a signal, 127/126 for
// a program that is missing or not executable.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(newDir(t, 0o755), "not-executable")
	writeFile(t, notExec, "#!/bin/sh\n", 0o644)
	cases := []struct {
		name string
		prog string
		args []string
		want int
	}{
		{"zero", attackerBin, []string{"x=exit:0"}, 0},
		{"three", attackerBin, []string{"x=exit:3"}, 3},
		{"sigterm", attackerBin, []string{"x=raise:15"}, 128 + 15},
		{"sigkill", attackerBin, []string{"x=raise:9"}, 128 + 9},
		{"shell_exit_42", "/bin/sh", []string{"-c", "exit 42"}, 42},
		{"shell_sigsegv", "/bin/sh", []string{"-c", "kill -SEGV $$"}, 128 + 11},
		{"shell_sigusr1", "/bin/sh", []string{"-c", "kill -USR1 $$"}, 128 + 10},
		{"pipeline_status", "/bin/sh", []string{"-c", "true | false"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := ciMgr.ExecArgs(context.Background(), c.prog, c.args, agentbox.WithWorkingDir("/"))
			if err != nil {
				t.Fatalf("ExecArgs: %v", err)
			}
			if res.ExitCode != c.want {
				t.Errorf("exit %d, want %d (stdout %q, stderr %q)", res.ExitCode, c.want, res.Stdout, res.Stderr)
			}
		})
	}
	for name, c := range map[string]struct {
		prog string
		want int
	}{"missing": {"/nonexistent/agentbox-attack", 127}, "not_executable": {notExec, 126}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ciMgr.ExecArgs(context.Background(), c.prog, nil, agentbox.WithWorkingDir("/"))
			var se *agentbox.SetupError
			if !errors.As(err, &se) || se.ExitCode != c.want {
				t.Errorf("err %v, want a SetupError with exit code %d", err, c.want)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		res, err := ciMgr.ExecArgs(context.Background(), "/bin/sleep", []string{"30"},
			agentbox.WithTimeout(300*time.Millisecond), agentbox.WithWorkingDir("/"))
		if !errors.Is(err, agentbox.ErrTimeout) || res == nil || res.ExitCode != 137 {
			t.Fatalf("err %v, result %+v; want ErrTimeout and exit 137", err, res)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("a 300ms timeout took %v", d)
		}
	})
}

// TestOutputFlood writes 50 MB to stdout under a 4 KiB capture limit: the
// capture stays bounded and the program is not blocked or killed by it.
func TestOutputFlood(t *testing.T) {
	t.Parallel()
	res, err := ciMgr.ExecArgs(context.Background(), "/bin/sh", []string{"-c", "head -c 50000000 /dev/zero; echo done >&2"},
		agentbox.WithMaxOutputBytes(4096), agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 4096 || !res.Truncated || strings.TrimSpace(res.Stderr) != "done" || res.ExitCode != 0 {
		t.Errorf("flood: %d bytes kept, truncated %v, stderr %q, exit %d", len(res.Stdout), res.Truncated, res.Stderr, res.ExitCode)
	}
}
