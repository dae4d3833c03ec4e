//go:build linux

package attack_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRedteam15ReducedTierHostIPC attacks the user's own System V shared
// memory and POSIX message queues on the host from the reduced tier, which
// has no IPC namespace: both are judged by uid alone (Landlock sees
// neither), so mode 0600 objects of the user's other programs (a desktop's
// MIT-SHM buffers, a database's shared memory, an application's queue)
// would be readable and writable from the sandbox (the queues are
// held: Landlock checks mq_open as an open of a file it does not grant). TestHostIPC
// covers the full sandbox only. The control uses a segment of its own.
//
// Fixed: the reduced tier answers every System V IPC call ENOSYS
// (seccomp's hostIPC); the control is now a write to the writable root.
func TestRedteam15ReducedTierHostIPC(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	secret := uniqueSecret("shm")
	key := int(time.Now().UnixNano()&0x3fffffff) | 1
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatalf("host segment: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, secret)
	_ = unix.SysvShmDetach(b)

	msg := uniqueSecret("mq")
	queue := fmt.Sprintf("/agentbox-rt15-%d", key)
	name, _ := unix.BytePtrFromString(queue[1:])
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(name)),
		unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_CLOEXEC, 0o600, 0, 0, 0)
	if errno != 0 {
		t.Fatalf("host message queue: %v", errno)
	}
	t.Cleanup(func() {
		unix.Close(int(fd))
		_, _, _ = unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(name)), 0, 0)
	})
	mb := []byte(msg)
	if _, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDSEND, fd, uintptr(unsafe.Pointer(&mb[0])), uintptr(len(mb)), 0, 0, 0); errno != 0 {
		t.Fatalf("mq_send: %v", errno)
	}

	w := newDir(t, 0o755)
	ps := []probe{
		control("write_root", "write:"+w+"/out", ""),
		// System V IPC as a whole is refused here (ENOSYS, as by a kernel
		// without it): the sandbox has no segment of its own either.
		attack("own_sysv_shm", "sysvshmown", "ENOSYS"),
		attack("host_sysv_shm", "sysvshm:"+strconv.Itoa(key)),
		// shmat by the id /proc/sysvipc/shm lists needs no shmget, which
		// a counted memory limit answers ENOSYS.
		attack("host_sysv_shm_by_id", "shmatid:"+strconv.Itoa(id)),
		attack("host_sysv_shm_write", "shmwriteid:"+strconv.Itoa(id)),
		attack("host_posix_mq", "mqsteal:"+queue),
	}
	refused, res := runInChild(t, "no-capabilities", false, w, ps)
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("attacker output:\n%s", res.Stdout)
	checkProbes(t, o, ps)
	for label, r := range o.results {
		if strings.Contains(r.detail, secret) || strings.Contains(r.detail, msg) {
			t.Errorf("ESCAPE %s: a host secret leaked: %q", label, r.detail)
		}
	}
	if b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY); err == nil {
		if strings.HasPrefix(string(b), "AGENTBOX-RT15-WROTE") {
			t.Errorf("ESCAPE: the sandbox wrote into the host's segment")
		}
		_ = unix.SysvShmDetach(b)
	}
	var attr [8]int64 // struct mq_attr
	if _, _, errno := unix.Syscall(unix.SYS_MQ_GETSETATTR, fd, 0, uintptr(unsafe.Pointer(&attr[0]))); errno == 0 && attr[3] != 1 {
		t.Errorf("ESCAPE: the host queue holds %d messages after the run, want 1: the sandbox took it", attr[3])
	}
}
