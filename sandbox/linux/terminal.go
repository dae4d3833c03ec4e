//go:build linux

package linux

import (
	"fmt"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// A program that asks for a terminal (sandbox.Program.Terminal) gets a
// pseudo-terminal the init makes from the sandbox's own /dev/ptmx: in the
// namespaced tier a devpts instance of the sandbox's user namespace, so the
// terminal belongs to the program's user and /dev/pts/0 reopens by name.
// The program never holds a descriptor of the caller's terminal: nothing it
// does to its terminal (modes, line discipline, input injection, a
// non-blocking file description) reaches the caller's, and agentbox relays
// the bytes.

// terminalFD is the master of the program's terminal until the init hands
// it to the parent with msgReady, or -1.
var terminalFD = -1

// openTerminal makes the program's terminal, rows by cols (when not zero),
// and returns the master and three descriptors of the slave, for the
// program's standard streams. The size is set before the program starts,
// so that its first look at it (stty size, a full-screen program's first
// frame) sees the user's.
func openTerminal(rows, cols int) (master int, slave *[3]int, err error) {
	master, err = unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	fail := func(e error) (int, *[3]int, error) {
		unix.Close(master)
		return -1, nil, e
	}
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		return fail(fmt.Errorf("unlock the terminal: %w", err))
	}
	if rows > 0 && cols > 0 {
		if err := unix.IoctlSetWinsize(master, unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
			return fail(fmt.Errorf("terminal size: %w", err))
		}
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		return fail(fmt.Errorf("terminal number: %w", err))
	}
	s, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("open /dev/pts/%d: %w", n, err))
	}
	fds := &[3]int{s, -1, -1}
	for i := 1; i < 3; i++ {
		if fds[i], err = unix.FcntlInt(uintptr(s), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			for _, fd := range fds[:i] {
				unix.Close(fd)
			}
			return fail(err)
		}
	}
	return master, fds, nil
}

// terminalFDs returns what goes with msgReady after the proxy's listener.
func terminalFDs() []int {
	if terminalFD < 0 {
		return nil
	}
	return []int{terminalFD}
}

func closeTerminal() {
	if terminalFD >= 0 {
		unix.Close(terminalFD)
		terminalFD = -1
	}
}

// anyTerminal says whether one of the program's standard streams is a
// terminal: stdio, or the init's own 0, 1 and 2 when nil (what the
// program then inherits).
func anyTerminal(stdio *[3]int) bool {
	fds := []int{0, 1, 2}
	if stdio != nil {
		fds = stdio[:]
	}
	return slices.ContainsFunc(fds, isTerminal)
}

// isTerminal: TCGETS answers only on a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
