//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRedteam29ExecJSONTerminalStop: `agentbox exec --json --timeout 2s`
// gets SIGTTOU (or SIGTTIN) 0.5s after its command started. README ("^Z does not stop
// agentbox run or exec while the program runs ... SIGTTIN and SIGTTOU are
// ignored") and the fix of TestRedteam28StoppedSupervisor promise that no
// job-control signal freezes the supervisor while the tree runs; but only
// execStream and run call ignoreTerminalStops: execJSON catches SIGTSTP
// (holdStops) and leaves SIGTTIN/SIGTTOU at their default, stop. agentbox
// stops, the command (which leads a session of its own) runs on, and its
// --timeout is enforced by no one for as long as the job stays stopped.
// Besides a kill -TTOU/-TTIN, the kernel sends SIGTTOU itself when
// exec --json, in the background of a terminal with `stty tostop`, writes
// its own ^Z notice ("SIGTSTP ignored ...") to that terminal while the
// command runs. The test checks, 5s after the signal, that no process of
// the tree is still running. Controls: plain exec (no --json) with the same
// signal is killed at its timeout (137, tree gone), and exec --json with
// SIGTSTP is too.
//
// Severity: medium (--timeout is not enforced; needs a SIGTTIN/SIGTTOU to
// agentbox or a background exec --json with tostop, not the sandboxed
// program's own doing).
// Fix: execJSON calls ignoreTerminalStops (from before the start, or as
// soon as the command may run: Manager.Exec gives no hook after the start,
// so before it; exec --json reads no terminal of its own then but the
// approval prompt's /dev/tty).
// Fixed: execJSON (and execStream, doctor) call ignoreTerminalStops before
// the start; the approval prompt gets them back (withTerminalStops).
func TestRedteam29ExecJSONTerminalStop(t *testing.T) {
	runEnv(t)
	for _, tc := range []struct {
		name string
		json bool
		sig  syscall.Signal
	}{
		{"stream_TTOU_control", false, syscall.SIGTTOU},
		{"json_TSTP_control", true, syscall.SIGTSTP},
		{"json_TTOU", true, syscall.SIGTTOU},
		{"json_TTIN", true, syscall.SIGTTIN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			mark := "rt29ttou-" + hex.EncodeToString(b)
			args := []string{"exec", "--timeout", "2s"}
			if tc.json {
				args = append(args, "--json")
			}
			p := startCLI(t, append(args, "--", "/usr/bin/perl", "-e", "sleep 60", mark)...)
			// Signal once the command runs (a start slowed by a loaded
			// machine would otherwise stop agentbox before it, harmless).
			self := strconv.Itoa(p.cmd.Process.Pid)
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if tree := marked(mark); len(tree) > 1 || len(tree) == 1 && tree[0] != self {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the command never ran; stderr %q", p.stderr.String())
				}
			}
			time.Sleep(500 * time.Millisecond)
			_ = p.cmd.Process.Signal(tc.sig)
			time.Sleep(5 * time.Second)
			var running []string
			for _, pid := range marked(mark) {
				if pid == self {
					continue // agentbox itself (its argv holds the mark)
				}
				if st := procState(pid); st != "T" && st != "t" {
					running = append(running, pid+":"+st)
				}
			}
			agentboxState := procState(self)
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			if len(running) > 0 {
				t.Errorf("%v to exec (json %v) 0.5s into its run (--timeout 2s): 5s later, agentbox is in state %q and the tree runs on unsupervised: %v",
					tc.sig, tc.json, agentboxState, running)
			}
			code := p.wait(t, 30*time.Second)
			if code != exitKilled {
				t.Errorf("exit %d, want 137; stdout %q stderr %q", code, p.stdout.String(), p.stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
			if left := marked(mark); len(left) > 0 {
				t.Errorf("after agentbox exited %d: tree left %v", code, left)
			}
		})
	}
}
