//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam28StoppedSupervisor: the user presses ^Z on `agentbox run`
// (a manifest with max_duration 2s) or `agentbox exec --timeout 2s`,
// started without --tty: the terminal sends SIGTSTP to the foreground
// process group, which is agentbox's; the program leads a session of its
// own (README), so only agentbox stops. The shell reports the job
// "Stopped", but the sandboxed tree runs on: the supervisor that enforces
// max_duration / --timeout is frozen, so the tree outlives its limit for
// as long as the job stays stopped (minutes, a logout with the job
// stopped, a forgotten `jobs` entry), and it keeps writing to the
// terminal. The test stops agentbox 1s in and checks 5s later that no
// process of the tree is still running (stopped with agentbox, or killed
// at the limit, would both do). Control: the same run, not stopped, is
// killed at its limit (exit 137) and its tree is gone.
//
// The kill switch (`agentbox kill`) still works on a stopped run (held).
//
// Severity: medium (a documented limit, max_duration / --timeout, is not
// enforced; needs a user's ^Z or a SIGTSTP/SIGTTIN/SIGTTOU to agentbox,
// not the sandboxed program's own doing).
// Fix: run and exec catch SIGTSTP (and SIGTTIN/SIGTTOU) and either stop
// the tree with them (cgroup freezer, or SIGSTOP to its process group,
// relaying SIGCONT on resume) or keep the deadline enforced from a part
// that job control does not stop; the deadline must be checked on resume.
// Fixed: run and exec do not stop on job control while the program runs
// (holdStops catches SIGTSTP with a notice, ignoreTerminalStops ignores
// SIGTTIN/SIGTTOU), so the supervisor keeps enforcing the limits.
func TestRedteam28StoppedSupervisor(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: rt28-tstp\nlimits: {max_duration: 2s}\n")
	for _, tc := range []struct {
		name string
		stop bool
		exec bool
	}{
		{"run_control", false, false},
		{"exec_control", false, true},
		{"run_stopped", true, false},
		{"exec_stopped", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			mark := "rt28tstp-" + hex.EncodeToString(b)
			var p *cliProcess
			if tc.exec {
				p = startCLI(t, "exec", "--timeout", "2s", "--", "/usr/bin/perl", "-e", "sleep 60", mark)
			} else {
				p = startCLI(t, "run", "--manifest", m, "--", "/usr/bin/perl", "-e", "sleep 60", mark)
			}
			time.Sleep(1 * time.Second)
			if tc.stop {
				_ = p.cmd.Process.Signal(syscall.SIGTSTP)
			}
			time.Sleep(5 * time.Second)
			var running []string
			for _, pid := range marked(mark) {
				if st := procState(pid); st != "T" && st != "t" {
					running = append(running, pid+":"+st)
				}
			}
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			if len(running) > 0 {
				t.Errorf("6s into a 2s limit, agentbox stopped %v: the tree runs on unsupervised: %v", tc.stop, running)
			}
			code := p.wait(t, 30*time.Second)
			if !tc.stop && code != exitKilled {
				t.Errorf("control: exit %d, want 137; stderr %q", code, p.stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
			if left := marked(mark); len(left) > 0 {
				t.Errorf("after agentbox exited %d: tree left %v", code, left)
			}
		})
	}
}

// procState is the one-letter state of pid ("" if gone).
func procState(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
