//go:build linux

// Package ptytest opens pseudo-terminals for tests that stand one in for a
// user's terminal.
package ptytest

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Open returns the master and the slave of a new pseudo-terminal, both
// closed when the test ends; it skips the test where there are none. The
// descriptors are blocking, as a terminal handed to a program is.
func Open(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	master = os.NewFile(uintptr(m), "ptmx")
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open /dev/pts/%d: %v", n, err)
	}
	slave = os.NewFile(uintptr(s), "pts")
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// Run starts cmd on a new pseudo-terminal (its controlling terminal and
// standard streams), types keys every 300 ms (a user leaving a pager), and
// returns what the terminal showed once cmd exited, or was killed after
// timeout. The output is read only once its copy has ended: when nothing
// holds the terminal any more, or, a second after cmd, when the master is
// closed under the copy.
func Run(t testing.TB, cmd *exec.Cmd, keys string, timeout time.Duration) string {
	t.Helper()
	m, s := Open(t)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	s.Close()
	var out strings.Builder
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&out, m); close(copied) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-tick.C:
			_, _ = m.Write([]byte(keys))
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Logf("%s timed out", cmd.Args)
			waiting = false
		}
	}
	select {
	case <-copied:
	case <-time.After(time.Second):
		m.Close()
		<-copied
	}
	return out.String()
}
