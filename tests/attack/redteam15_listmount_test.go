//go:build linux

package attack_test

import (
	"os"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRedteam15ListmountHostNamespace asks listmount(2) (Linux 6.8, not in
// the seccomp deny list) for the host's mount namespace by its id: the
// sandbox may list its own mounts, never the host's. The id is the host's
// real one (NS_GET_MNTNS_ID), as a program could guess it (ids are small
// and sequential).
func TestRedteam15ListmountHostNamespace(t *testing.T) {
	t.Parallel()
	f, err := os.Open("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var id uint64
	const nsGetMntnsID = 0x8008b705 // _IOR(0xb7, 5, __u64)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), nsGetMntnsID, uintptr(unsafe.Pointer(&id))); e != 0 {
		t.Skipf("NS_GET_MNTNS_ID: %v", e)
	}
	runProbes(t, ciMgr, []probe{
		control("own_mounts", "listmnt:0", "mounts"),
		attack("host_mounts", "listmnt:"+strconv.FormatUint(id, 10)),
	})
}
