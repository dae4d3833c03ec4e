//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam27AgentStealsOperatorTerminal: `agentbox run` started on the
// operator's terminal without --tty hands the agent that terminal as it is.
// The agent leads a session of its own, so it tries to make the operator's
// terminal ITS controlling terminal (TIOCSCTTY) and its own process group
// the terminal's foreground group (TIOCSPGRP). Where that works, the
// operator's ^C, ^\ and ^Z go to the agent (which ignores them) and never
// to `agentbox run`: the operator can no longer interrupt the agent from
// the keyboard, and the agent gets job control over the terminal.
// Two cases: the terminal is the controlling terminal of run's session
// (started from an interactive shell: TIOCSCTTY must fail), and a terminal
// that is no session's controlling terminal (run under setsid, a service's
// TTYPath, a terminal whose shell exited: TIOCSCTTY succeeds for any
// process with the terminal open unless refused). The control: ^C typed on
// the terminal (first case) or SIGINT (second) reaches `agentbox run`,
// which ends the agent (grace 1s). Fails in the second case only: the agent
// takes the host terminal as its controlling terminal and becomes its
// foreground group for the rest of the run (a host-terminal state change
// that seccomp lets through; what it buys beyond the descriptor it already
// holds is job control: ^C/^Z typed there go to the agent, not to run).
// Severity: low (needs a terminal that is no session's controlling terminal).
// A fix would refuse TIOCSCTTY (and TIOCSPGRP) in the seccomp filter for a
// terminal the sandbox does not own, as TIOCSTI and TIOCSETD are.
// Fixed: the seccomp filter refuses TIOCSCTTY (EPERM, both tiers) when one
// of the program's standard streams is the caller's terminal
// (seccompOptions.callerTerminal); TIOCSPGRP then fails with ENOTTY. A
// terminal of the sandbox's own (--tty) and forkpty on pipes keep it.
func TestRedteam27AgentStealsOperatorTerminal(t *testing.T) {
	for _, ctty := range []bool{true, false} {
		name := "no-ctty"
		if ctty {
			name = "ctty"
		}
		t.Run(name, func(t *testing.T) {
			runEnv(t)
			m := writeManifest(t, "name: rt27-tty\n")
			master, slave := ptytest.Open(t)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			const script = `$| = 1; $SIG{INT} = "IGNORE"; $SIG{TERM} = "IGNORE";
print(ioctl(STDIN, 0x540E, 0) ? "SCTTY ok\n" : "SCTTY $!\n");
print(ioctl(STDIN, 0x5410, pack("i", getpgrp())) ? "SPGRP ok\n" : "SPGRP $!\n");
print "READY\n"; sleep 20; print "SURVIVED\n";`
			c := exec.Command(exe, "run", "--grace", "1s", "--manifest", m, "--", "/usr/bin/perl", "-e", script)
			c.Env = append(os.Environ(), cliEnv+"=1")
			c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: ctty, Ctty: 0}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Process.Kill() })
			slave.Close()
			lines := make(chan string, 64)
			go func() {
				sc := bufio.NewScanner(master)
				for sc.Scan() {
					lines <- strings.TrimRight(sc.Text(), "\r")
				}
				close(lines)
			}()
			var got []string
			deadline := time.After(20 * time.Second)
		wait:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("terminal closed: %q", got)
					}
					got = append(got, l)
					if l == "READY" {
						break wait
					}
				case <-deadline:
					t.Fatalf("no READY: %q", got)
				}
			}
			if ctty {
				// The operator presses ^C.
				if _, err := master.Write([]byte{3}); err != nil {
					t.Fatal(err)
				}
			} else {
				// No session owns the terminal: ^C signals nobody
				// whatever the agent does, so the operator's supervisor
				// signals run itself.
				_ = c.Process.Signal(syscall.SIGINT)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(8 * time.Second):
			}
			for more := true; more; {
				select {
				case l, ok := <-lines:
					if !ok {
						more = false
						break
					}
					got = append(got, l)
				case <-time.After(200 * time.Millisecond):
					more = false
				}
			}
			joined := strings.Join(got, "\n")
			if strings.Contains(joined, "SCTTY ok") || strings.Contains(joined, "SPGRP ok") {
				t.Errorf("the agent made the operator's terminal its own controlling terminal / took its foreground group: %q", got)
			}
			if c.ProcessState == nil {
				t.Errorf("control: SIGINT (^C) did not stop `agentbox run` within 8s (grace 1s): %q", got)
			} else {
				t.Logf("run ended: %v; output %q", werr, got)
			}
		})
	}
}
