//go:build linux

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam31HangupAtApprovalPrompt: the user's terminal goes away
// (the ssh link drops, the window is closed) while `agentbox exec` waits
// at the approval prompt of an escalated command. The kernel hangs the
// terminal up: the prompt's read fails and agentbox, its session leader,
// gets SIGHUP. Either way nobody approved the command, so it must never
// run, and agentbox must end (129 for the SIGHUP, or the refusal's 126),
// not linger with a left-behind read. The escalated command ignores
// SIGHUP and SIGINT and leaves a marker file, so that a start followed by
// a relayed signal would still show. Control: "y" typed at the prompt runs
// it (the marker appears).
//
// Held (new coverage: hangup of the terminal at the approval prompt, not
// a signal from a key or a process).
func TestRedteam31HangupAtApprovalPrompt(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := `trap "" INT HUP; sleep 1; echo x > ` + marker + `; git push 2>/dev/null; exit 0`
	argv := []string{"exec", "--write", dir, "-c", script}

	type term struct {
		cmd    *exec.Cmd
		master *os.File
		mu     sync.Mutex
		out    strings.Builder
		done   chan error
	}
	start := func() *term {
		blocking, slave := ptytest.Open(t)
		// A pollable master, so that Close ends the reader's read and
		// releases the master at once (a blocking read would keep it open:
		// no hangup).
		fd, err := unix.FcntlInt(blocking.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		blocking.Close()
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
		master := os.NewFile(uintptr(fd), "ptmx")
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
		slave.Close() // only agentbox holds the terminal: closing the master hangs it up
		tm := &term{cmd: c, master: master, done: make(chan error, 1)}
		go func() { tm.done <- c.Wait() }()
		go func() {
			br := bufio.NewReader(master)
			buf := make([]byte, 4096)
			for {
				n, err := br.Read(buf)
				tm.mu.Lock()
				tm.out.Write(buf[:n])
				tm.mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() { _ = c.Process.Kill(); <-tm.done })
		return tm
	}
	shown := func(tm *term) string {
		tm.mu.Lock()
		defer tm.mu.Unlock()
		return tm.out.String()
	}
	waitFor := func(tm *term, s string) bool {
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if strings.Contains(shown(tm), s) {
				return true
			}
		}
		return false
	}
	status := func(tm *term) (int, bool) {
		select {
		case err := <-tm.done:
			tm.done <- err
			var ee *exec.ExitError
			if err == nil {
				return 0, true
			}
			if errors.As(err, &ee) {
				ws := ee.Sys().(syscall.WaitStatus)
				if ws.Signaled() {
					return 128 + int(ws.Signal()), true
				}
				return ws.ExitStatus(), true
			}
			t.Fatal(err)
		case <-time.After(30 * time.Second):
		}
		return 0, false
	}

	// Control: approved, it runs.
	tm := start()
	if !waitFor(tm, "Run it? [y/N]") {
		t.Fatalf("control: no approval prompt; terminal %q", shown(tm))
	}
	if _, err := tm.master.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	if _, ok := status(tm); !ok {
		t.Fatalf("control: agentbox still running; terminal %q", shown(tm))
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: the approved command did not run (%v); terminal %q", err, shown(tm))
	}
	os.Remove(marker)

	// Attack: the terminal hangs up at the prompt.
	tm = start()
	if !waitFor(tm, "Run it? [y/N]") {
		t.Fatalf("no approval prompt; terminal %q", shown(tm))
	}
	seen := shown(tm)
	tm.master.Close()
	code, ended := status(tm)
	if !ended {
		t.Fatalf("agentbox still running 30s after its terminal hung up at the approval prompt; terminal %q", seen)
	}
	if code != 128+int(syscall.SIGHUP) && code != 126 {
		t.Errorf("hangup at the approval prompt: exit %d, want 129 (or 126, refused)", code)
	}
	time.Sleep(3 * time.Second) // a started command would write its marker after 1s
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the escalated command ran although its terminal hung up at the approval prompt (exit %d)", code)
	}
}
