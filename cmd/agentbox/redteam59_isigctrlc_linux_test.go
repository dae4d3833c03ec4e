package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam59AgentDisablesCtrlC: `agentbox run` without --tty hands the
// operator's terminal to the agent as its standard streams, and the
// README's answer to an agent that must be stopped is "End it with ^C or
// agentbox kill": the first ^C is relayed to the agent, and one the agent
// ignores still ends it after --grace (supervise.Agent.Signal, "an agent
// that ignores one must still be stoppable by it"). The terminal's line
// discipline is what turns the ^C key into SIGINT for agentbox, and the
// agent may change the terminal's modes while it runs (they are put back
// only after the run). One `stty -isig` on its standard input (TCSETS on
// the inherited descriptor, which is not its controlling terminal, so
// the kernel asks nothing) clears ISIG on the operator's terminal: from
// then on ^C, ^\ and ^Z are plain bytes handed to the agent's read, and
// agentbox never gets a signal. The agent runs on past its grace for as
// long as it likes; only a kill from another terminal (or a limit) ends
// it, and an operator at the keyboard has no way to stop it.
//
// Attack (the agent's program):
//
//	stty -isig; sleep 30
//
// then the operator presses ^C on the terminal `agentbox run --grace 1s`
// runs on.
//
// Why it works: the seccomp filter (sandbox/linux/seccomp.go) refuses
// TIOCSTI, TIOCSETD and TIOCSCTTY on the shared terminal but lets TCSETS*
// through, and cmd/agentbox/run.go:runAgent relies on the terminal's
// SIGINT (interruptSignals/relaySignals) for ^C, with nothing that keeps
// or restores ISIG while the agent runs (sharedFile restores the modes
// only after the run).
//
// Severity: medium (the operator's stop key is taken away: the agent
// outlives ^C and its grace; agentbox kill and the limits still work).
// Found by red-team round 59. Fixed: cmd/agentbox/intrguard_linux.go
// (guardInterrupt: while the command shares agentbox's terminal, ISIG and
// the interrupt key are put back within a tenth of a second of a change,
// and the user told; a command that keeps clearing them can still win
// the keys pressed between two looks: README).
//
// Control: the same run with `sleep 30` alone ends on ^C within the grace.
func TestRedteam59AgentDisablesCtrlC(t *testing.T) {
	runEnv(t)
	if _, err := exec.LookPath("stty"); err != nil {
		t.Skip("stty not found (package coreutils)")
	}
	m := writeManifest(t, "name: rt59a-ctrlc\n")

	// Control: ^C ends the run.
	if alive, out := rt59aCtrlC(t, m, "echo RT59A-READY; sleep 30", false, 1); alive {
		t.Fatalf("control: agentbox run still running 6s after ^C; terminal output %q", out)
	}

	// Attack: the agent clears ISIG on the terminal first (and reads it
	// back at once, the premise: agentbox puts it back within a tenth of
	// a second).
	alive, out := rt59aCtrlC(t, m, rt59aClearISIG+"; echo RT59A-READY; sleep 30", true, 1)
	if alive {
		t.Errorf("the agent cleared ISIG on the operator's terminal and outlived ^C and its 1s grace by 5s (agentbox run never saw the ^C); terminal output %q", out)
	}
}

// rt59aClearISIG is stty -isig on the agent's standard input, with the
// terminal's modes read back at once: ISIG-OFF when the change took.
const rt59aClearISIG = `python3 -c 'import termios; a = termios.tcgetattr(0); a[3] &= ~termios.ISIG; termios.tcsetattr(0, termios.TCSANOW, a); print("ISIG-OFF" if not termios.tcgetattr(0)[3] & termios.ISIG else "ISIG-ON")'`

// rt59aCtrlC runs script as an agent on a new terminal (the CLI's
// controlling terminal, as a user's shell gives it), presses ^C once the
// script says it is ready, and reports whether the CLI still runs 6 s
// later. wantNoISIG checks the premise: the agent really cleared ISIG on
// the terminal.
func rt59aCtrlC(t *testing.T, manifest, script string, wantNoISIG bool, presses int, flags ...string) (bool, string) {
	t.Helper()
	master, slave := ptytest.Open(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--grace", "1s", "--approve", "--manifest", manifest}, flags...)
	c := exec.Command(exe, append(args, "--", "/bin/sh", "-c", script)...)
	c.Env = append(os.Environ(), cliEnv+"=1")
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	defer func() {
		_ = c.Process.Kill()
		<-done
	}()
	var mu sync.Mutex
	var out bytes.Buffer
	ready := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		seen := false
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if !seen && strings.Contains(out.String(), "RT59A-READY") {
				seen = true
				close(ready)
			}
			mu.Unlock()
			if err != nil {
				return // io.EOF or EIO: the terminal's last holder is gone
			}
		}
	}()
	output := func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	select {
	case <-ready:
	case <-done:
		t.Fatalf("agentbox run ended before the agent was ready: %q", output())
	case <-time.After(30 * time.Second):
		t.Fatalf("agent not ready after 30s: %q", output())
	}
	if wantNoISIG {
		if !strings.Contains(output(), "ISIG-OFF") {
			t.Fatalf("premise: the agent did not clear ISIG on the terminal; output %q", output())
		}
		// The fix looks every tenth of a second: ^C comes as a user's
		// would, not within microseconds of the change (a command that
		// keeps clearing ISIG can still win a key between two looks: a
		// limit the README states).
		time.Sleep(500 * time.Millisecond)
	}
	for i := range presses {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		if _, err := master.Write([]byte{0x03}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
		return false, output()
	case <-time.After(6 * time.Second):
		return true, output()
	}
}

// TestRedteam59TTYAgentIgnoresCtrlC: with `run --tty` the operator's
// terminal is raw and relayed to a terminal of the agent's own, so ^C is
// a key the agent's terminal turns into SIGINT for the agent's own
// foreground group; agentbox never sees it. An agent that ignores SIGINT
// (trap with an empty action on INT, or a raw terminal of its own) is then never stopped
// from the keyboard: no grace period starts, no kill follows, and the
// relay has no key of agentbox's own (as ssh's "~." is) to end the run.
// Without --tty the same agent is killed --grace after the first ^C
// (supervise.Agent.Signal: "an agent that ignores one must still be
// stoppable by it").
//
// Attack: run --tty --grace 1s with the agent ignoring SIGINT and sleeping
// 30 s, then ^C.
//
// Why it works: cmd/agentbox/run.go:runAgent starts the relay
// (startRelay) with the user's terminal raw, so ISIG is off there and
// interruptSignals never receives SIGINT; the relay copies the ^C byte to
// the agent's terminal and nothing else acts on it.
//
// Severity: low (the operator's stop key does not stop an agent that
// ignores it; agentbox kill and the limits still do; forwarding ^C to the
// program is deliberate under --tty, an interactive shell ignores SIGINT
// itself, so the fix is a key of agentbox's own). Found by red-team
// round 59. Fixed: cmd/agentbox/stopkey.go (^C three times within 2 s
// also stops the run as agentbox's own ^C does).
//
// Control: the same --tty run of `sleep 30` without the trap ends on ^C.
func TestRedteam59TTYAgentIgnoresCtrlC(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: rt59a-ttyctrlc\n")
	if alive, out := rt59aCtrlC(t, m, "echo RT59A-READY; sleep 30", false, 1, "--tty"); alive {
		t.Fatalf("control: agentbox run --tty still running 6s after ^C; terminal output %q", out)
	}
	// The fix: agentbox's own stop key, ^C three times within 2 s.
	alive, out := rt59aCtrlC(t, m, "trap '' INT; echo RT59A-READY; sleep 30", false, 3, "--tty")
	if alive {
		t.Errorf("an agent ignoring SIGINT under run --tty outlived ^C and a 1s grace by 5s: agentbox never acted on the key; terminal output %q", out)
	}
}
