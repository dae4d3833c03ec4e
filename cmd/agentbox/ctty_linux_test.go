//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// forkptyScript makes a pseudo-terminal inside the sandbox and its child's
// controlling terminal, as script, tmux, expect and node-pty do
// (forkpty: setsid, then TIOCSCTTY on the new terminal), and reports what
// the child saw.
const forkptyScript = `import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    f = os.open("/dev/tty", os.O_RDWR)
    os.write(f, b"CHILD-CTTY " + os.ttyname(0).encode() + b"\n")
    os._exit(0)
out = b""
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode().strip() + " status %d\n" % st)
`

// TestRunForkptyInside: the seccomp rule that keeps an agent from taking the
// operator's terminal as its controlling terminal (TIOCSCTTY, refused only
// while the agent holds that terminal) leaves programs that make terminals
// of their own working: the agent on pipes, and on a terminal of its own
// (--tty, whose Setctty goes through the same filter).
func TestRunForkptyInside(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: forkpty\n")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The script goes in on standard input: the command-line classifier
	// reads "fork" in it as a fork bomb.
	c := exec.Command(exe, "run", "--manifest", m, "--", "/usr/bin/python3", "-")
	c.Env = append(os.Environ(), cliEnv+"=1")
	c.Stdin = strings.NewReader(forkptyScript)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("run: %v; stdout %q", err, out)
	}
	if s := string(out); !strings.Contains(s, "CHILD-CTTY /dev/pts/") || !strings.Contains(s, "status 0") {
		t.Errorf("forkpty inside the sandbox: %q", s)
	}
}

// TestRunTTYJobControl: under --tty the program's own terminal is its
// controlling terminal (Go's Setctty, under the seccomp filter) and an
// interactive bash keeps job control: ^Z stops the foreground job
// (TIOCSPGRP on a terminal the sandbox owns) and kill %1 ends it.
func TestRunTTYJobControl(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: jobs\n")
	u := startOnTerminal(t, "1", "run", "--tty", "--manifest", m, "--", "/bin/bash", "--norc", "--noprofile", "-i")
	steps := []struct{ after, send string }{
		{"", "PS1='PROMPT> '; sleep 30\r"},
		{"", "\x1a"},
		{"Stopped", "kill -KILL %1; sleep 0.5; jobs; echo JC-$((1+1))\r"},
		// JC-2 is bash's output, not the echo of the line typed. A
		// second exit ends bash even if it still counts a stopped job.
		{"JC-2", "exit\rexit\r"},
	}
	var got []string
	deadline := time.After(20 * time.Second)
	for i := 0; i < len(steps); {
		if steps[i].after == "" {
			time.Sleep(500 * time.Millisecond)
		} else {
			for !strings.Contains(strings.Join(got, "\n"), steps[i].after) {
				select {
				case l, ok := <-u.lines:
					if !ok {
						t.Fatalf("terminal closed waiting for %q: %q", steps[i].after, got)
					}
					got = append(got, l)
				case <-deadline:
					t.Fatalf("no %q: %q", steps[i].after, got)
				}
			}
		}
		if _, err := u.master.Write([]byte(steps[i].send)); err != nil {
			t.Fatal(err)
		}
		i++
	}
	done := make(chan error, 1)
	go func() { done <- u.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v; output %q", err, got)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("bash did not exit: %q", got)
	}
	// The user's terminal stays open (the test holds its slave): take
	// what it showed so far.
	for more := true; more; {
		select {
		case l := <-u.lines:
			got = append(got, l)
		case <-time.After(200 * time.Millisecond):
			more = false
		}
	}
	t.Logf("terminal: %q", got)
	if out := strings.Join(got, "\n"); strings.Contains(out, "no job control") || strings.Contains(out, "cannot set terminal process group") {
		t.Errorf("bash has no job control under --tty: %q", got)
	}
}
