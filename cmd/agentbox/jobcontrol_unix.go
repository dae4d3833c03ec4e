//go:build unix

package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Job control would stop agentbox alone: the program it supervises leads a
// session of its own (and, with --tty, has a terminal of its own, where ^Z
// reaches it as a key), so a ^Z, or a SIGTTIN/SIGTTOU for agentbox's own
// use of the terminal in the background, would freeze the supervisor while
// the tree runs on, its max_duration, --timeout and memory limit enforced
// by no one. While the program runs agentbox therefore does not stop:
//
//   - SIGTSTP is caught and ignored, with a notice that says so;
//   - SIGTTIN and SIGTTOU are ignored (SIG_IGN, not caught: with a handler
//     the kernel would re-raise them on every retry of the same read or
//     write, a busy loop). A background read of the terminal then fails
//     with EIO, which the --tty relay waits out (terminalRelay.copyIn,
//     which also leaves the terminal's modes alone until then), and a
//     write goes through, as for a program without job control. The
//     programs agentbox starts re-exec agentbox, whose init
//     catches both before the program's exec puts them back to default.
var (
	jobStop     = []os.Signal{syscall.SIGTSTP}
	jobTerminal = []os.Signal{syscall.SIGTTIN, syscall.SIGTTOU}
)

// tstpNotice is printed on the first SIGTSTP while the program runs.
const tstpNotice = "^Z (SIGTSTP) ignored: agentbox keeps enforcing the limits while the program runs; end it with ^C or \"agentbox kill\" (with --tty, ^Z goes to the program)"

// tstpPromptNotice is printed instead on the first SIGTSTP at the approval
// prompt, inside the start: nothing runs yet, so tstpNotice would mislead.
const tstpPromptNotice = "^Z (SIGTSTP) ignored at the approval prompt: nothing runs until it is answered; answer it, or stop with ^C"

// prompting is set while withTerminalStops runs a prompt.
var prompting atomic.Bool

// stopNotice is the notice for a SIGTSTP now.
func stopNotice() string {
	if prompting.Load() {
		return tstpPromptNotice
	}
	return tstpNotice
}

// holdStops catches SIGTSTP until release is called, calling notice on
// the first of each kind (stopNotice); from before the start, so that
// none stops agentbox while the program starts.
func holdStops(notice func(string)) (release func()) {
	tstp := make(chan os.Signal, 1)
	signal.Notify(tstp, jobStop...)
	done := make(chan struct{})
	go func() {
		noticed := map[string]bool{}
		for {
			select {
			case <-tstp:
				if text := stopNotice(); !noticed[text] {
					noticed[text] = true
					notice(text)
				}
			case <-done:
				return
			}
		}
	}()
	// Released, SIGTSTP is dropped by Go's handler (the runtime does not
	// restore the default of a signal it has handled): agentbox is about
	// to exit by then.
	return func() {
		signal.Stop(tstp)
		close(done)
	}
}

// ignoreTerminalStops ignores SIGTTIN and SIGTTOU from now until agentbox
// exits. Every path that starts a program calls it before the start: the
// start may print (supervise's warnings, the ^Z notice) once the program
// runs, and a write in the background of a `tostop` terminal would stop
// agentbox there, the program running on unsupervised.
func ignoreTerminalStops() { signal.Ignore(jobTerminal...) }

// withTerminalStops runs fn, agentbox's own approval prompt on the user's
// terminal (asked before the launch it gates: nothing of the command runs
// yet), with SIGTTIN and SIGTTOU ignored, as after it: in the background
// the prompt stops agentbox itself until brought to the foreground
// (readTerminal), so that a SIGCONT always gives control back to it, to
// end the prompt on the stop signal sent with it.
func withTerminalStops(fn func()) {
	prompting.Store(true)
	defer prompting.Store(false)
	ignoreTerminalStops()
	fn()
}

// terminalForeground tells whether agentbox is in the foreground process
// group of the terminal fd: only there may it use the terminal without a
// job-control stop. Unknown counts as foreground, as the kernel counts it:
// fd is then no controlling terminal of agentbox's (or it has no
// foreground group, 0), where job control does not apply.
func terminalForeground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err != nil || pgrp == 0 || pgrp == unix.Getpgrp()
}

// parentKeepsGroup reports whether agentbox's parent is in another process
// group of agentbox's session, which keeps agentbox's group from being
// orphaned (the kernel then carries out its stop signals). false means
// "not known to": the group may be orphaned.
func parentKeepsGroup() bool {
	ppid := unix.Getppid()
	pg, err := unix.Getpgid(ppid)
	if err != nil {
		return false
	}
	sid, err := unix.Getsid(ppid)
	if err != nil {
		return false
	}
	own, err := unix.Getsid(0)
	return err == nil && pg != unix.Getpgrp() && sid == own
}
