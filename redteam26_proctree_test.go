//go:build linux && amd64

package agentbox_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// Red team 26 (d): process trees that resist killing. A tree made to be
// hard to end (a subreaper, setsid'd double-forked daemons renamed to look
// like kernel threads, stopped children and a stopped parent, a reader
// blocked opening a FIFO, a writer blocked on a full pipe whose reader is
// stopped, a setsid'd fork loop, an unreaped zombie) is ended by a timeout
// and by agentbox's own death; afterwards no process carrying the run's
// unique marker (in its environment) may remain on the host.

const rt26dChildEnv = "AGENTBOX_RT26D_CHILD"

func init() {
	if v := os.Getenv(rt26dChildEnv); v != "" {
		os.Exit(rt26dChild(v))
	}
}

// rt26dJob is one run, in a child test binary: Tier "full" (whatever the
// machine gives) or "reduced" (mount refused: the warn fallback's reduced
// tier).
type rt26dJob struct {
	Tier    string
	Dir     string
	Mark    string
	Script  string
	Timeout time.Duration
}

type rt26dOut struct {
	Refused  string
	Err      string
	Code     int
	TimedOut bool
	Millis   int64
	Stdout   string
	Stderr   string
	Degraded []string
}

// rt26dHostile is a perl program: the process tree that resists killing.
// It writes the pids it makes into $D/pids and touches $D/ready.
const rt26dHostile = `
use POSIX;
$| = 1;
syscall(157, 36, 1, 0, 0, 0); # PR_SET_CHILD_SUBREAPER
open(my $f, ">>", "$ENV{D}/pids") or die;
sub rec { print $f "$_[0]\n"; $f->flush; }
rec($$);
# a setsid'd, double-forked daemon that looks like a kernel thread
if (!fork) { POSIX::setsid(); if (!fork) { $0 = "[kworker/0:1]"; rec($$); sleep 60; exit 0 } exit 0 }
# a stopped child
if (!fork) { rec($$); kill 'STOP', $$; sleep 60; exit 0 }
# a reader blocked opening a FIFO no one writes
POSIX::mkfifo("$ENV{D}/fifo", 0600);
if (!fork) { rec($$); open(my $x, "<", "$ENV{D}/fifo"); sleep 60; exit 0 }
# a writer blocked on a full pipe whose reader is stopped
pipe(my $r, my $w);
if (!fork) { close $w; rec($$); kill 'STOP', $$; sleep 60; exit 0 }
if (!fork) { close $r; rec($$); syswrite($w, "x" x 1000000); sleep 60; exit 0 }
close $r; close $w;
# a setsid'd loop that forks all the time
if (!fork) { POSIX::setsid(); rec($$);
  while (1) { my $p = fork; if (defined $p && $p == 0) { select(undef, undef, undef, 0.03); exit 0 }
    select(undef, undef, undef, 0.005); 1 while waitpid(-1, WNOHANG) > 0; } }
# a zombie never reaped
if (!fork) { exit 0 }
open(my $rd, ">", "$ENV{D}/ready"); close $rd;
print "ready\n";
kill 'STOP', $$;
sleep 60;
`

func rt26dChild(v string) int {
	var j rt26dJob
	if err := json.Unmarshal([]byte(v), &j); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := func(o rt26dOut) int {
		_ = json.NewEncoder(os.Stdout).Encode(o)
		return 0
	}
	if j.Tier == "reduced" {
		if err := nomount.Install(); err != nil {
			fmt.Fprintln(os.Stderr, "nomount:", err)
			return 1
		}
	}
	cfg := agentbox.CIConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		return out(rt26dOut{Refused: err.Error()})
	}
	defer m.Close()
	opts := []agentbox.Option{agentbox.WithWorkingDir(j.Dir), agentbox.WithWritableRoots(j.Dir),
		agentbox.WithEnv("D=" + j.Dir), agentbox.WithEnv("RT26D_MARK=" + j.Mark)}
	if j.Timeout > 0 {
		opts = append(opts, agentbox.WithTimeout(j.Timeout))
	}
	began := time.Now()
	res, err := m.ExecArgs(context.Background(), "/usr/bin/perl", []string{"-e", j.Script}, opts...)
	o := rt26dOut{Millis: time.Since(began).Milliseconds()}
	if err != nil {
		o.Err = err.Error()
	}
	if res != nil {
		o.Code, o.TimedOut, o.Stdout, o.Stderr, o.Degraded = res.ExitCode, res.TimedOut, res.Stdout, res.Stderr, res.Degraded
	}
	return out(o)
}

// rt26dStart starts the child test binary for job j.
func rt26dStart(t *testing.T, j rt26dJob) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	b, _ := json.Marshal(j)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rt26dChildEnv+"="+string(b))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

func rt26dDecode(t *testing.T, stdout, stderr *bytes.Buffer) rt26dOut {
	t.Helper()
	var o rt26dOut
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		t.Fatalf("child: %v: %q\n%s", err, stdout.String(), stderr.String())
	}
	if o.Refused != "" {
		t.Skipf("agentbox refused: %s", o.Refused)
	}
	return o
}

func rt26dMark() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "rt26d-" + hex.EncodeToString(b)
}

// rt26dMarked lists the host's processes whose environment or command line
// holds mark, or that hold a file in dir open (every process of the tree
// inherits dir/pids; a process that sets its name, perl's $0, overwrites
// its environment too), with their /proc/PID/stat, and kills them (the test
// leaves nothing behind).
func rt26dMarked(mark, dir string) []string {
	names, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, p := range names {
		env, _ := os.ReadFile(p + "/environ")
		cl, _ := os.ReadFile(p + "/cmdline")
		if !rt26dHolds(p, dir) && !bytes.Contains(env, []byte(mark)) && !bytes.Contains(cl, []byte(mark)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		if pid == os.Getpid() {
			continue
		}
		st := rt9State(pid)
		if st == "" {
			continue
		}
		stat, _ := os.ReadFile(p + "/stat")
		found = append(found, fmt.Sprintf("%d %s", pid, strings.TrimSpace(string(stat))))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return found
}

// rt26dHolds reports whether process directory p works in dir or has a
// file below it open.
func rt26dHolds(p, dir string) bool {
	if l, err := os.Readlink(p + "/cwd"); err == nil && l == dir {
		return true
	}
	fds, _ := filepath.Glob(p + "/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}

// rt26dCount counts the live processes whose environment holds mark.
func rt26dCount(mark, dir string) int {
	names, _ := filepath.Glob("/proc/[0-9]*")
	n := 0
	for _, p := range names {
		env, _ := os.ReadFile(p + "/environ")
		if bytes.Contains(env, []byte(mark)) || rt26dHolds(p, dir) {
			n++
		}
	}
	return n
}

// rt26dAwaitGone waits up to d for no marked process to be left, and
// returns those left.
func rt26dAwaitGone(mark, dir string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		names, _ := filepath.Glob("/proc/[0-9]*")
		left := false
		for _, p := range names {
			env, _ := os.ReadFile(p + "/environ")
			pid, _ := strconv.Atoi(filepath.Base(p))
			if (bytes.Contains(env, []byte(mark)) || rt26dHolds(p, dir)) && pid != os.Getpid() {
				if st := rt9State(pid); st != "" && st != "Z" {
					left = true
					break
				}
			}
		}
		if !left || time.Now().After(deadline) {
			return rt26dMarked(mark, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rt26dPgid is the process group in a line of rt26dMarked.
func rt26dPgid(line string) string {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 3 {
		return ""
	}
	return f[2]
}

func rt26dTiers(t *testing.T) []string {
	if os.Geteuid() == 0 {
		return []string{"full"} // the reduced tier refuses a root caller
	}
	return []string{"full", "reduced"}
}

// TestRedteam26ProcTreeTimeout: the hostile tree under a 1.5 s timeout.
// The call must return 137 (timed out) within a bound, and no process of
// the run be left on the host; a control run beside exits normally.
// Held when written (kept: covers stopped processes, a subreaper, a
// renamed setsid'd daemon, FIFO and full-pipe sleepers together, in both
// tiers).
func TestRedteam26ProcTreeTimeout(t *testing.T) {
	for _, tier := range rt26dTiers(t) {
		t.Run(tier, func(t *testing.T) {
			dir := hostDir(t)
			mark := rt26dMark()
			cmd, so, se := rt26dStart(t, rt26dJob{Tier: tier, Dir: dir, Mark: mark, Script: rt26dHostile, Timeout: 1500 * time.Millisecond})
			_ = cmd.Wait()
			o := rt26dDecode(t, so, se)
			t.Logf("%s: %+v", tier, o)
			left := rt26dAwaitGone(mark, dir, 500*time.Millisecond)
			if o.Code != 137 || !o.TimedOut {
				t.Errorf("ESCAPE? the timed-out run returned %d (timed out %v), want 137", o.Code, o.TimedOut)
			}
			if !strings.Contains(o.Stdout, "ready") {
				t.Errorf("the hostile tree did not get built: %+v", o)
			}
			bound := int64(4000)
			if tier == "reduced" {
				bound = 9000
			}
			if o.Millis > bound {
				t.Errorf("ESCAPE: the timed-out run took %d ms (bound %d)", o.Millis, bound)
			}
			if len(left) > 0 {
				t.Errorf("ESCAPE: processes of the run outlived its timeout:\n%s", strings.Join(left, "\n"))
			}

			ctl := rt26dMark()
			cmd, so, se = rt26dStart(t, rt26dJob{Tier: tier, Dir: hostDir(t), Mark: ctl, Script: `print "fine\n"; exit 3`})
			_ = cmd.Wait()
			c := rt26dDecode(t, so, se)
			if c.Code != 3 || c.TimedOut || c.Stdout != "fine\n" {
				t.Errorf("control: %+v", c)
			}
		})
	}
}

// TestRedteam26ProcTreeAgentboxKilled: the hostile tree, and a plain
// background child in the program's own process group, while the agentbox
// process running them is SIGKILLed (a crash, an OOM kill, a CI runner
// killing the agent).
//
// The attack needs no hostility at all in the reduced tier: any child the
// program starts without leaving its process group (perl's fork, a shell's
// "cmd &", a dev server, a stopped job, a process blocked on a FIFO or a
// full pipe) outlives agentbox's death, re-parented to the host's init.
// Only the program itself dies, of its parent-death signal; the init, which
// alone ends the tree in this tier (killTree), is SIGKILLed by its own
// parent-death signal and never gets to. The README says "A process that
// left the program's group outlives the command only when agentbox itself
// dies", implying that the program's group does not; DESIGN invariant 6:
// "Kill means gone: the whole process tree ... also when agentbox dies".
// `Degraded` does not mention it. The survivors keep Landlock and seccomp,
// so this is no escape from confinement, but an unsupervised, unbounded
// (no timeout, no kill switch, no registry entry) workload left running on
// the host with the user's rights.
//
// Severity: medium (reduced tier only, needs agentbox to die).
// Fails as agentbox-ci (reduced subtest); the full tier (pid namespace)
// holds as root and as agentbox-ci.
//
// A fix would need something that outlives the init's SIGKILL long enough
// to end the tree: e.g. the init's parent-death signal a catchable one
// (SIGTERM) on which it runs killOrphans before exiting, or a subreaper
// stage between the init and the program whose parent-death signal is
// catchable; or, where a cgroup is delegated, cgroup.kill by the next
// agentbox start for cgroups whose owner is gone. Or, at least, document
// it and say so in Degraded.
//
// Fixed: the reduced tier's init has a caught parent-death signal
// (SIGCONT, not SIGKILL) and ends the tree (killSandbox: killTree, then
// killOrphans) when its control socket closes or that signal comes with a
// new parent (sandbox/linux/reap.go reducedDeathSignal, init.go awaitKill).
func TestRedteam26ProcTreeAgentboxKilled(t *testing.T) {
	const script = `
open(my $f, ">>", "$ENV{D}/group") or die;
my $p = fork; if (!$p) { sleep 60; exit 0 }
print $f "$p\n"; close $f;
` + rt26dHostile
	for _, tier := range rt26dTiers(t) {
		t.Run(tier, func(t *testing.T) {
			dir := hostDir(t)
			mark := rt26dMark()
			cmd, so, se := rt26dStart(t, rt26dJob{Tier: tier, Dir: dir, Mark: mark, Script: script, Timeout: 60 * time.Second})
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					rt26dMarked(mark, dir)
					t.Fatalf("the tree never got ready: %s %s", so.String(), se.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			if n := rt26dCount(mark, dir); n < 8 {
				t.Errorf("the marker scan sees only %d processes of the running tree: it is blind", n)
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			pb, _ := os.ReadFile(filepath.Join(dir, "pids"))
			program := strings.Fields(string(pb))[0] // the program leads its group
			left := rt26dAwaitGone(mark, dir, 1500*time.Millisecond)
			var inGroup, others []string
			for _, l := range left {
				if rt26dPgid(l) == program {
					inGroup = append(inGroup, l)
				} else {
					others = append(others, l)
				}
			}
			if len(inGroup) > 0 {
				t.Errorf("ESCAPE: processes in the program's own process group outlived agentbox's death:\n%s", strings.Join(inGroup, "\n"))
			}
			if len(others) > 0 {
				if tier == "reduced" {
					t.Logf("documented (reduced tier): processes that left the program's group outlived agentbox:\n%s", strings.Join(others, "\n"))
				} else {
					t.Errorf("ESCAPE: processes of the sandbox outlived agentbox's death:\n%s", strings.Join(others, "\n"))
				}
			}
		})
	}
}
