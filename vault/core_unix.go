//go:build unix

package vault

import "syscall"

// LimitCoreDumps sets the soft RLIMIT_CORE of the calling process to zero, so
// that a crash while a key or value is in memory writes no core file. The
// hard limit is left alone. Children inherit the limit.
func LimitCoreDumps() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		return err
	}
	rl.Cur = 0
	return syscall.Setrlimit(syscall.RLIMIT_CORE, &rl)
}
