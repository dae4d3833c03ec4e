//go:build unix

package vault

import "syscall"

// LimitCoreDumps keeps a crash while a key or value is in memory from
// dumping core: the soft RLIMIT_CORE goes to zero (children inherit it;
// the hard limit is left alone), and on Linux the process is marked not
// dumpable. The limit alone is not enough there: a core_pattern that pipes
// dumps to a handler (systemd-coredump, apport) makes the kernel ignore it
// and hand the whole memory image over. Not dumpable also keeps other
// processes of the same user from reading the memory (ptrace,
// /proc/PID/mem). Exec resets the mark, so programs started afterwards are
// not affected.
func LimitCoreDumps() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		return err
	}
	rl.Cur = 0
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		return err
	}
	return notDumpable()
}
