//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestExecTTY runs `agentbox exec --tty` on a pseudo-terminal standing for
// the user's: the command gets a terminal of its own (its name, the user's
// window size), what the user types reaches it, its exit status comes
// back, and the user's terminal has its modes back afterwards, although
// agentbox made it raw and the command turned echo off on its own.
func TestExecTTY(t *testing.T) {
	for _, tc := range []struct {
		name, machine, profile string
		ttyName                string // what tty prints inside
	}{
		{"namespaces", "1", "ci", "/dev/pts/0"},
		// The reduced tier has no devpts of its own: the terminal is one
		// of the host's.
		{"reduced tier", cliNoMount, "dev", "/dev/pts/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.machine == cliNoMount && os.Getuid() == 0 {
				t.Skip("the reduced tier refuses root")
			}
			execTTY(t, tc.machine, tc.profile, tc.ttyName)
		})
	}
}

func execTTY(t *testing.T, machine, profile, ttyName string) {
	u := startOnTerminal(t, machine, "exec", "--tty", "--profile", profile, "--workdir", "/", "--", "/bin/sh", "-c",
		`echo "IN $(tty) $(stty size)"; stty -echo; read x; echo "GOT $x"; exit 4`)
	master, c, lines := u.master, u.cmd, u.lines
	var got []string
	var in string
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case l := <-lines:
			l = strings.TrimRight(l, "\r")
			got = append(got, l)
			switch {
			case strings.HasPrefix(l, "IN "):
				in = l
				if _, err := master.Write([]byte("typed\r")); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(l, "GOT "):
				done = true
			}
		case <-deadline:
			t.Fatalf("no answer from the command; got %q", got)
		}
	}
	err := c.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Errorf("exit: %v, want status 4; output %q", err, got)
	}
	if !strings.HasPrefix(in, "IN "+ttyName) || !strings.HasSuffix(in, " 33 77") {
		t.Errorf("inside: %q, want its own terminal %s with the user's size 33 77", in, ttyName)
	}
	if reduced := strings.Contains(strings.Join(got, "\n"), "not fully enforced: reduced tier"); reduced != (machine == cliNoMount) {
		t.Errorf("reduced tier warned: %v, want %v; output %q", reduced, machine == cliNoMount, got)
	}
	if !slices.Contains(got, "GOT typed") {
		t.Errorf("what the user typed did not arrive: %q", got)
	}
	u.modesRestored(t)
}

func TestExecTTYRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no terminal", []string{"exec", "--tty", "--", "true"}, "--tty needs a terminal on stdin"},
		{"with --json", []string{"exec", "--tty", "--json", "--", "true"}, "--tty and --json exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no terminal" && term.IsTerminal(int(os.Stdin.Fd())) {
				t.Skip("the test's own stdin is a terminal")
			}
			code, _, errOut := runCLI(t, tc.args...)
			if code != exitInternal || !strings.Contains(errOut, tc.msg) {
				t.Errorf("exit %d, stderr %q", code, errOut)
			}
		})
	}
}

// TestRunTTY runs an agent with --tty under a one-second duration limit:
// it gets a terminal of its own, reads what the user types, and agentbox's
// notice that it kills the agent, printed while the user's terminal is
// raw, still ends its line properly. The user's terminal has its modes back
// afterwards.
func TestRunTTY(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: tty\nlimits: {max_duration: 1s}\n")
	u := startOnTerminal(t, "1", "run", "--tty", "--manifest", m, "--", "/bin/sh", "-c",
		`echo "IN $(tty) $(stty size)"; read x; echo "GOT $x"; sleep 30`)
	master, c, lines := u.master, u.cmd, u.lines
	var got []string
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case l := <-lines:
			got = append(got, l)
			switch {
			case strings.HasPrefix(l, "IN "):
				if _, err := master.Write([]byte("typed\r")); err != nil {
					t.Fatal(err)
				}
			case strings.Contains(l, "exited code 137"):
				done = true
			}
		case <-deadline:
			t.Fatalf("no end of the agent; got %q", got)
		}
	}
	err := c.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitKilled {
		t.Errorf("exit: %v, want 137; output %q", err, got)
	}
	want := map[string]bool{"IN /dev/pts/0 33 77\r": false, "GOT typed\r": false, "🛑 Killing agent tty: duration limit exceeded: 1s\r": false}
	for _, l := range got {
		if _, ok := want[l]; ok {
			want[l] = true
		}
	}
	for l, seen := range want {
		if !seen {
			t.Errorf("output lacks the line %q: %q", l, got)
		}
	}
	u.modesRestored(t)
}

// userTerminal is a pseudo-terminal standing for the user's (33 rows by
// 77 columns), with the CLI started on it.
type userTerminal struct {
	master *os.File
	fd     int // the slave's
	before *unix.Termios
	cmd    *exec.Cmd
	// lines are what the terminal shows, a line at a time, with their \r
	// (a Scanner would drop it).
	lines chan string
}

// startOnTerminal starts the test binary as the CLI (cliEnv=machine) with
// args, on a new user terminal.
func startOnTerminal(t *testing.T, machine string, args ...string) *userTerminal {
	t.Helper()
	master, slave := ptytest.Open(t)
	u := &userTerminal{master: master, fd: int(slave.Fd()), lines: make(chan string, 32)}
	if err := unix.IoctlSetWinsize(u.fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 33, Col: 77}); err != nil {
		t.Fatal(err)
	}
	var err error
	if u.before, err = unix.IoctlGetTermios(u.fd, unix.TCGETS); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	u.cmd = exec.Command(exe, args...)
	u.cmd.Env = append(os.Environ(), cliEnv+"="+machine)
	u.cmd.Stdin, u.cmd.Stdout, u.cmd.Stderr = slave, slave, slave
	if err := u.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(u.lines)
		br := bufio.NewReader(master)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			u.lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	return u
}

// modesRestored checks that the user's terminal has the modes it had
// before the CLI started.
func (u *userTerminal) modesRestored(t *testing.T) {
	t.Helper()
	after, err := unix.IoctlGetTermios(u.fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *u.before {
		t.Errorf("the user's terminal after the run: lflag %#x iflag %#x, was %#x %#x", after.Lflag, after.Iflag, u.before.Lflag, u.before.Iflag)
	}
}

// waitExit waits d at most for the CLI on u to end and returns what its
// Wait returned; past d it kills the CLI and fails the test with msg.
func (u *userTerminal) waitExit(t *testing.T, d time.Duration, msg string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- u.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = u.cmd.Process.Kill()
		t.Fatal(msg)
		return nil
	}
}
