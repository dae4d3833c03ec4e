//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestSharedTerminalRestored runs a program that leaves its terminal raw,
// without echo and non-blocking, through Start and through Wrap: the
// change is there while the sandbox holds the terminal (the control) and
// gone once the program has been waited for (Start) or cleaned up (Wrap).
func TestSharedTerminalRestored(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	// The script checks its own change before it ends, so a sandbox that
	// failed to change anything fails the test too.
	const script = `stty raw -echo && python3 -c 'import fcntl,os; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)' && stty -a | grep -q -- '-echo '`
	for _, via := range []string{"start", "wrap"} {
		t.Run(via, func(t *testing.T) {
			_, slave := ptytest.Open(t)
			fd := int(slave.Fd())
			before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Stdin, cmd.Stdout = slave, slave
			switch via {
			case "start":
				p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"))
				if err != nil {
					t.Fatal(err)
				}
				res, err := p.Wait()
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("exit %v, %v: the program could not change its terminal", res.ExitCode, err)
				}
			case "wrap":
				cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWorkingDir("/"))
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					cleanup()
					t.Fatalf("%v: the program could not change its terminal", err)
				}
				if now, _ := unix.IoctlGetTermios(fd, unix.TCGETS); now.Lflag&unix.ECHO != 0 {
					t.Error("control: echo is still on before the clean-up")
				}
				cleanup()
			}
			after, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Errorf("terminal modes after the run: lflag %#x iflag %#x, were %#x %#x", after.Lflag, after.Iflag, before.Lflag, before.Iflag)
			}
			if now, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); now != flags {
				t.Errorf("file status flags after the run: %#o, were %#o", now, flags)
			}
		})
	}
}
