package main

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// defaultTerminalStops sets SIGTTIN and SIGTTOU back to SIG_DFL. The Go
// runtime cannot: signal.Reset leaves a signal it was told to ignore
// ignored. A zeroed kernel sigaction is SIG_DFL with no flags and an empty
// mask whatever the architecture's layout; the mask's size is 8 bytes but
// on MIPS (16), hence the retry.
func defaultTerminalStops() {
	var act [8]uint64
	for _, s := range []unix.Signal{unix.SIGTTIN, unix.SIGTTOU} {
		for _, maskSize := range []uintptr{8, 16} {
			_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&act)), 0, maskSize, 0, 0)
			if errno != unix.EINVAL {
				break
			}
		}
	}
}

// stopForTerminal stops agentbox as the kernel does for a background read
// of the terminal (SIGTTIN, "Stopped (tty input)"), but from a kill that
// returns here on SIGCONT rather than a read the kernel would retry. The
// signal is at its default only for the kill: readTerminal runs with it
// ignored.
//
// The signal goes to this very thread (tgkill on a locked thread), which
// takes it on its way out of the syscall: the stop has happened, or the
// kernel has discarded it (an orphaned process group), when the call
// returns. Sent to the process, another thread might take it only after
// ignoreTerminalStops, which discards it, and agentbox would not stop.
func stopForTerminal() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defaultTerminalStops()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGTTIN)
	ignoreTerminalStops()
}
