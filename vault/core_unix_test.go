//go:build unix

package vault

import "syscall"

func coreLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true
}
