//go:build linux

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
)

// sessionTerminal is the CLI started as a user's shell starts it: a
// session leader whose controlling terminal is a new pty, its group the
// foreground one, with what the terminal shows collected.
type sessionTerminal struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	out    strings.Builder
	done   chan error
}

// startSession starts the test binary as the CLI with argv on a new
// session terminal. With hangup, the master is pollable and the test's
// copy of the slave is closed after the start, so that closing the master
// hangs the terminal up (a blocking read of the master, or a slave left
// open, would keep it up).
func startSession(t *testing.T, hangup bool, argv ...string) *sessionTerminal {
	t.Helper()
	master, slave := ptytest.Open(t)
	if hangup {
		fd, err := unix.FcntlInt(master.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		master.Close()
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
		master = os.NewFile(uintptr(fd), "ptmx")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, argv...)
	c.Env = append(os.Environ(), cliEnv+"=1")
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if hangup {
		slave.Close()
	}
	s := &sessionTerminal{cmd: c, master: master, done: make(chan error, 1)}
	go func() { s.done <- c.Wait() }()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = c.Process.Kill(); <-s.done })
	return s
}

// shown is what the terminal has shown so far.
func (s *sessionTerminal) shown() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// waitFor reports whether the terminal shows text within d.
func (s *sessionTerminal) waitFor(text string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(s.shown(), text) {
			return true
		}
	}
	return false
}

// status waits d at most for the CLI to end and returns its exit status
// (128+N when signal N ended it), ok false if it still runs.
func (s *sessionTerminal) status(t *testing.T, d time.Duration) (code int, ok bool) {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for a later status and the cleanup
		return exitCodeOf(t, err), true
	case <-time.After(d):
		return 0, false
	}
}

// exitCodeOf is the exit status a shell would report for a command that
// ended with err (exec.Cmd.Wait's): 128+N when signal N ended it.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// backgroundLauncher is a session leader on the terminal (stdin) that
// starts argv[1:] as a background job (a process group of its own, not the
// terminal's foreground one, as a shell's `cmd &` or timeout(1) does; no
// tostop), writes its pid to fd 3 and exits with its status (128+N when
// signal N ended it).
const backgroundLauncher = `
import os, sys
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.execv(sys.argv[1], sys.argv[1:])
try:
    os.setpgid(pid, pid)
except OSError:
    pass
os.write(3, (str(pid) + "\n").encode())
os.close(3)
_, st = os.waitpid(pid, 0)
c = os.waitstatus_to_exitcode(st)
sys.exit(128 - c if c < 0 else c)
`

// bgAgentbox is this test binary as agentbox, started by a launcher script
// (python3 -c SCRIPT EXE ARGV...) on a new session whose controlling
// terminal is a fresh pty; the script starts agentbox in a process group
// of its own, off the terminal's foreground, and writes its pid to fd 3.
type bgAgentbox struct {
	pid      int
	out      *syncbuf.Buffer // what the terminal showed
	launcher *exec.Cmd
	done     chan error // the launcher's Wait, once
	code     int
	ended    bool
}

// startBackground starts agentbox with argv through the launcher script.
// Cleanup kills the launcher.
func startBackground(t *testing.T, script string, argv ...string) *bgAgentbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	master, slave := ptytest.Open(t)
	b := &bgAgentbox{out: &syncbuf.Buffer{}, done: make(chan error, 1)}
	go func() { _, _ = io.Copy(b.out, master) }()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	b.launcher = exec.Command("python3", append([]string{"-c", script, exe}, argv...)...)
	b.launcher.Env = append(os.Environ(), cliEnv+"=1")
	b.launcher.Stdin, b.launcher.Stdout, b.launcher.Stderr = slave, slave, slave
	b.launcher.ExtraFiles = []*os.File{pw}
	b.launcher.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := b.launcher.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() { b.done <- b.launcher.Wait() }()
	t.Cleanup(func() {
		_ = b.launcher.Process.Kill()
		if !b.ended {
			select {
			case <-b.done:
			case <-time.After(10 * time.Second):
			}
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("launcher: %q %v %v; terminal %q", line, err, perr, b.out.String())
	}
	b.pid = pid
	return b
}

// launcherExit waits up to d for the launcher to end and returns its exit
// code; ok is false when it has not ended.
func (b *bgAgentbox) launcherExit(t *testing.T, d time.Duration) (code int, ok bool) {
	t.Helper()
	if b.ended {
		return b.code, true
	}
	select {
	case err := <-b.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			b.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		b.ended = true
		return b.code, true
	case <-time.After(d):
		return 0, false
	}
}
