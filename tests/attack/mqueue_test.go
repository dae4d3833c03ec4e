//go:build linux

package attack_test

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostMqOpen creates (and removes) a POSIX message queue of the default
// size on the host, as the test's user.
func hostMqOpen(tag string) error {
	name, _ := unix.BytePtrFromString(fmt.Sprintf("agentbox-attack-host-%s-%d", tag, time.Now().UnixNano()))
	attr := [8]int64{0, 10, 8192}
	fd, _, e := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(name)), unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_CLOEXEC,
		0o600, uintptr(unsafe.Pointer(&attr[0])), 0, 0)
	if e != 0 {
		return e
	}
	unix.Close(int(fd))
	_, _, _ = unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(name)), 0, 0)
	return nil
}

// TestMessageQueueAllowance fills the sandbox's own POSIX message queues
// (in its own IPC namespace) and checks that its caller can
// still make one on the host meanwhile. The kernel counts queue memory
// against RLIMIT_MSGQUEUE per user, and also charges what a user
// namespace's processes use to the user who made the namespace (agentbox's
// caller; root, for a root caller, who has no exemption here): a sandbox
// left with the caller's whole allowance takes all of it, and the caller's
// own mq_open fails with EMFILE until the sandbox ends. agentbox already
// gives the sandbox a share of RLIMIT_SIGPENDING for the same reason.
func TestMessageQueueAllowance(t *testing.T) {
	t.Parallel()
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MSGQUEUE, &l); err != nil || l.Cur == unix.RLIM_INFINITY {
		t.Skipf("RLIMIT_MSGQUEUE unbounded here (%v): nothing to exhaust", err)
	}
	if err := hostMqOpen("before"); err != nil {
		t.Fatalf("control: the host cannot make a message queue before the sandbox runs: %v", err)
	}
	ps := []probe{
		// Refusing every queue (Landlock refuses to create the queue's
		// inode) is as good as a bounded allowance.
		attack("fill_caller_allowance", "mqhog"),
		control("hold", "sleep:5s", ""),
	}
	run := startProbes(t, ciMgr, ps, nil)
	line := run.waitLine(t, "RESULT fill_caller_allowance")
	t.Logf("sandbox: %s", line)
	if err := hostMqOpen("during"); err != nil {
		t.Errorf("ESCAPE: while the sandbox holds its own message queues, its caller's mq_open on the host fails: %v", err)
	}
	run.check(t, ps)
	if err := hostMqOpen("after"); err != nil {
		t.Errorf("the host cannot make a message queue after the sandbox ended: %v", err)
	}
}
