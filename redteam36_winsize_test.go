//go:build linux

package agentbox_test

import (
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"golang.org/x/sys/unix"
)

// TestRedteam36SharedTerminalWindowSize: a command given the caller's
// terminal as its standard streams (agentbox exec without --tty, Start
// with a terminal's files) sets that terminal's window size to one row of
// one column with TIOCSWINSZ. agentbox puts the terminal's flags, modes
// and owner back after the run, but a window size set there would stay
// until the terminal is next resized (restoring it would also undo the
// user's own resizing meanwhile): the user's shell, less, vim and top would
// render into one cell, and the SIGWINCH goes to the caller's foreground
// job. Found by red-team round 36 (low; it was a documented limit since
// round 20). Fixed: seccomp refuses TIOCSWINSZ while a standard stream is
// the caller's terminal, as it refuses TIOCSCTTY.
//
// The attack must fail: after Wait the terminal's window size is what it
// was. The control: the command reads its terminal's size (TIOCGWINSZ).
func TestRedteam36SharedTerminalWindowSize(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	want := unix.Winsize{Row: 40, Col: 100}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &want); err != nil {
		t.Fatal(err)
	}
	out := rt38RunOnTerminal(t, slave, "import struct\n"+
		"r, c, _, _ = struct.unpack(\"HHHH\", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8)))\n"+
		"sys.stderr.write(\"SIZE %dx%d\\n\" % (r, c))\n"+
		"try:\n"+
		"    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack(\"HHHH\", 1, 1, 0, 0))\n"+
		"except OSError as e:\n"+
		"    sys.stderr.write(\"SET-REFUSED %d\\n\" % e.errno)\n")
	if !strings.Contains(out, "SIZE 40x100\n") {
		t.Fatalf("control: the command did not read its terminal's size: stderr %q", out)
	}
	got, err := unix.IoctlGetWinsize(int(master.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		t.Fatal(err)
	}
	if got.Row != want.Row || got.Col != want.Col {
		t.Errorf("ESCAPE: the command left the user's terminal %dx%d (was %dx%d): agentbox does not restore its window size",
			got.Row, got.Col, want.Row, want.Col)
	}
	if !strings.Contains(out, "SET-REFUSED 1\n") {
		t.Errorf("TIOCSWINSZ on the caller's terminal was not refused with EPERM: stderr %q", out)
	}
}
