//go:build linux && amd64

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt26StopInit is a script for the reduced tier: it starts a background
// sleep (its pid in $PIDS), then signals each of its init's ($PPID)
// threads by the route $HOW names, and prints what each call returned.
// With SIG=0 it only asks (the control); SIG=19 (SIGSTOP) stops the init.
// The routes: kill(2), tkill(2), tgkill(2), rt_sigqueueinfo(2) and
// rt_tgsigqueueinfo(2) with the thread's id, and pidfd_send_signal(2)
// on a thread pidfd (pidfd_open with PIDFD_THREAD) and on /proc/TID,
// and F_SETOWN with F_SETSIG on a pipe it then writes to. The control
// beside each: the program signals itself by the first three.
const rt26StopInit = `sleep 20 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ppid, sig, how = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
info = (ctypes.c_int * 32)(sig, 0, -1)  # si_signo, si_errno, si_code SI_QUEUE
def send(tid):
    if how == "kill": return libc.syscall(62, tid, sig)
    if how == "tkill": return libc.syscall(200, tid, sig)
    if how == "tgkill": return libc.syscall(234, ppid, tid, sig)
    if how == "sigqueue": return libc.syscall(129, tid, sig, info)
    if how == "tgsigqueue": return libc.syscall(297, ppid, tid, sig, info)
    if how == "pidfd":
        fd = libc.syscall(434, tid, os.O_EXCL)  # PIDFD_THREAD
        return fd if fd < 0 else libc.syscall(424, fd, sig, None, 0)
    if how == "fsetown":
        import fcntl
        r, w = os.pipe()
        try:
            fcntl.fcntl(r, fcntl.F_SETOWN, tid)
        except OSError as e:
            ctypes.set_errno(e.errno); return -1
        fcntl.fcntl(r, 10, sig)  # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)
        os.write(w, b"x"); os.close(r); os.close(w)
        return 0
    if how == "procfd":
        fd = os.open("/proc/%d" % tid, os.O_RDONLY | os.O_DIRECTORY)
        return libc.syscall(424, fd, sig, None, 1)  # PIDFD_SIGNAL_THREAD
print("kill", libc.kill(ppid, 0), ctypes.get_errno())
me = os.getpid()
print("self", libc.syscall(234, me, me, 0), libc.syscall(62, me, 0), libc.syscall(200, me, 0))
for tid in sorted(os.listdir("/proc/%d/task" % ppid), key=int):
    r = send(int(tid))
    print(how, tid, r, ctypes.get_errno())
' "$PPID" "$SIG" "$HOW" >>"$PIDS.log" 2>&1
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
// run, with agentbox still alive. kill(2), tkill(2), rt_sigqueueinfo(2),
// rt_tgsigqueueinfo(2), pidfd_send_signal(2) and F_SETOWN's SIGIO name
// the thread as well. The controls: the same script with signal 0 (only
// asking) leaves no survivor and returns at the timeout, and the program
// signals itself by kill, tkill and tgkill.
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
//
// Fixed: seccomp (keeperRules, fcntlRule, ownerIoctls, hostSignal in
// sandbox/linux/seccomp_signal.go) refuses every call that names the kept
// thread to signal it (kill, tkill, tgkill, rt_sigqueueinfo,
// rt_tgsigqueueinfo, pidfd_open, F_SETOWN), the calls that name a target
// through memory (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP), and answers
// pidfd_send_signal ENOSYS in the tier; the filter is built on the kept
// thread (startLocked), which names itself.
func TestRedteam26ReducedTierStopInit(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	type route struct{ how, sig string }
	routes := []route{{"tgkill", "0"}} // the control: only asking
	for _, how := range []string{"kill", "tkill", "tgkill", "sigqueue", "tgsigqueue", "pidfd", "procfd", "fsetown"} {
		routes = append(routes, route{how, "19"})
	}
	for _, c := range routes {
		t.Run(c.how+"/"+c.sig, func(t *testing.T) {
			s := rt9Scenario{API: "exec", Script: "SIG=" + c.sig + " HOW=" + c.how + "; " + rt26StopInit, Timeout: 1500 * time.Millisecond}
			dir := hostDir(t)
			o := rt10RunReduced(t, dir, s)
			log, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
			t.Logf("signals: %s", log)
			if !strings.Contains(string(log), c.how+" ") {
				t.Fatalf("the script did not run")
			}
			if !strings.Contains(string(log), "self 0 0 0") {
				t.Errorf("the program could not signal itself (tgkill, kill, tkill)")
			}
			if len(o.Alive) > 0 {
				t.Errorf("ESCAPE: the command's background child %v outlived the run (%d ms, timeout %v)", o.Alive, o.Millis, s.Timeout)
			} else if o.Millis > 4000 {
				t.Errorf("the run took %d ms past a timeout of %v", o.Millis, s.Timeout)
			}
		})
	}
}
