//go:build unix

package vault

import "syscall"

// LimitCoreDumps sets the soft RLIMIT_CORE of the calling process to zero, so
// that a crash while a key or value is in memory writes no core file. The
// hard limit is left alone. Children inherit the limit.
//
// Where core_pattern pipes cores to a handler (systemd-coredump, apport),
// the kernel hands the dump over whatever the limit, and the handler's own
// rules decide what is kept. Marking the process not dumpable would stop
// that, but an unprivileged process that is not dumpable can no longer
// re-execute itself (/proc/self/exe) as a sandbox's init.
func LimitCoreDumps() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		return err
	}
	rl.Cur = 0
	return syscall.Setrlimit(syscall.RLIMIT_CORE, &rl)
}
