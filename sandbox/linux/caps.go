//go:build linux

package linux

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Securebits (linux/securebits.h).
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// lastCap is the highest capability number the kernel knows (found once).
var lastCap = sync.OnceValue(func() int {
	for c := 63; c >= 0; c-- {
		if _, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil {
			return c
		}
	}
	return unix.CAP_LAST_CAP
})

// dropCapabilities removes every capability from the current thread for
// good: the bounding and ambient sets are emptied, the securebits are locked
// so that uid 0 inside the namespace regains nothing on execve, and the
// effective, permitted and inheritable sets are cleared.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) == 0 {
		// An unprivileged process without a user namespace (the reduced
		// tier) may not change its bounding set or securebits, and need
		// not: it is not root and, once the sets below are empty, holds no
		// capability that execve could pass on, while no_new_privs keeps
		// execve from granting one.
		if os.Getuid() == 0 || os.Geteuid() == 0 {
			return fmt.Errorf("root without CAP_SETPCAP cannot drop its bounding set")
		}
		data = [2]unix.CapUserData{}
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("capset: %w", err)
		}
		return nil
	}
	last := lastCap()
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("drop bounding cap %d: %w", c, err)
		}
	}
	const bits = secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
