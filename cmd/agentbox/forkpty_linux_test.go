//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
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
