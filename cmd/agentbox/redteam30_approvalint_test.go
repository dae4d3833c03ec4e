//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam30InterruptAtApprovalPrompt: `agentbox exec` of a command the
// classifier escalates asks on the user's terminal ("Run it? [y/N]"). The
// user presses ^C at the prompt. Nothing has started, so DESIGN.md's exit
// status and README's contract for every other pre-start moment (a signal
// before the start, the vault prompt: TestRedteam28SignalDuringVaultPrompt)
// want agentbox to stop with 128+2 and never run the command. Instead
// execStream (and runAgent) claim the stop signals before Start, and the
// approval prompt runs inside Start with context.Background and a blocking
// Fscanln on /dev/tty: the ^C is buffered in the claimed channel, the prompt
// keeps waiting, and the user has no way out but answering. A user who then
// types "y" (or whose terminal has the next keystroke buffered) gets the
// command run anyway — the ^C only reaches it afterwards as a relayed
// SIGINT, which a command that ignores SIGINT (or finishes quickly) outlives
// (the relayed SIGINT races the shell's trap here: the "ran" error is seen
// on most runs, the hang at the prompt on every run).
// With --json the context is cancelled but the callback ignores it: the
// prompt still hangs until answered (the command then does not start).
// Control: the same command answered "y" without ^C runs. runAgent
// (`agentbox run`) claims the signals before Start the same way.
//
// Severity: low/medium (a user's abort of an escalated, i.e. risky, command
// is not honoured; the prompt cannot be interrupted).
// Fix: the approval callback should end on a stop signal: e.g. deliver
// the claimed signals to a context the prompt watches (read the tty with a
// deadline/poll and return ApprovalDeny+interrupted on cancel), then exit
// 128+N without starting the command.
// Fixed: until programStarted, a claimed stop signal still cancels the
// command's context and is recorded (interrupts.deliver); askOnTerminal
// watches that context through readTerminal, the vault prompt's
// interruptible read (terminal modes restored), and refuses; execStream
// and runAgent map the failed start to 128+N (interruptedOr). The run
// case covers `agentbox run`.
func TestRedteam30InterruptAtApprovalPrompt(t *testing.T) {
	runEnv(t)
	// Ignores SIGINT, so that a relayed ^C does not hide that it ran.
	const script = `trap "" INT; sleep 1; echo RAN-rt30-$((6*7)); git push 2>/dev/null; exit 0`

	manifest := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(manifest, []byte("name: rt30-prompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"exec", []string{"exec", "-c", script}},
		{"exec --json", []string{"exec", "--json", "-c", script}},
		{"run", []string{"run", "--manifest", manifest, "--", "/bin/sh", "-c", script}},
	} {
		argv := tc.argv
		t.Run(tc.name, func(t *testing.T) {
			// Control: "y" at the prompt runs the command.
			tm := startSession(t, false, argv...)
			if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
				t.Fatalf("control: no approval prompt; terminal %q", tm.shown())
			}
			if _, err := tm.master.Write([]byte("y\r")); err != nil {
				t.Fatal(err)
			}
			if !tm.waitFor("RAN-rt30-42", 30*time.Second) {
				t.Fatalf("control: the approved command did not run; terminal %q", tm.shown())
			}
			if _, ok := tm.status(t, 30*time.Second); !ok {
				t.Fatalf("control: agentbox still running; terminal %q", tm.shown())
			}

			// Attack: ^C at the prompt.
			tm = startSession(t, false, argv...)
			if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
				t.Fatalf("no approval prompt; terminal %q", tm.shown())
			}
			if _, err := tm.master.Write([]byte{0x03}); err != nil { // ^C
				t.Fatal(err)
			}
			code, ended := tm.status(t, 10*time.Second)
			if !ended {
				t.Errorf("^C at the approval prompt: agentbox still waiting at the prompt 10s later (^C not honoured); terminal %q", tm.shown())
				// What the user does next: answers the prompt that is still up.
				if _, err := tm.master.Write([]byte("y\r")); err != nil {
					t.Fatal(err)
				}
				if tm.waitFor("RAN-rt30-42", 20*time.Second) {
					t.Errorf("the command ran although the user pressed ^C at its approval prompt; terminal %q", tm.shown())
				}
				return
			}
			if code != 128+int(syscall.SIGINT) {
				t.Errorf("^C at the approval prompt: exit %d, want %d (nothing started); terminal %q", code, 128+int(syscall.SIGINT), tm.shown())
			}
			if strings.Contains(tm.shown(), "RAN-rt30-42") {
				t.Errorf("the command ran although the user pressed ^C at its approval prompt; terminal %q", tm.shown())
			}

		})
	}
}
