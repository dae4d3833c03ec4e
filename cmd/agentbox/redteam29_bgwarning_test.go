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

// rt29BackgroundLauncher is backgroundLauncher on a terminal it first
// sets tostop on.
const rt29BackgroundLauncher = `
import termios
a = termios.tcgetattr(0)
a[3] |= termios.TOSTOP
termios.tcsetattr(0, termios.TCSANOW, a)
` + backgroundLauncher

// TestRedteam29RunBackgroundWarningStops: `agentbox run` started in the
// background of a terminal with `stty tostop` (a shell's `agentbox run ...
// &`), with a manifest that sets max_duration 2s and max_tokens (a field
// agentbox does not enforce yet, so supervise.Start warns "not enforced
// yet: limits.max_tokens"). supervise.Start prints that warning (Notify, on
// run's stderr, the terminal) after it launched the program and armed the
// duration timer, but runAgent calls ignoreTerminalStops only after Start
// returns: the warning's write makes the kernel send SIGTTOU to agentbox's
// background process group, SIGTTOU's default action stops agentbox, and
// the program, which leads a session of its own, runs on past max_duration,
// supervised by no one, for as long as the job stays stopped. The same
// holds for the memory-roots warning Start prints (memoryRootsCheck). The
// control: the same background run without max_tokens (no warning inside
// Start; the "Agent started" line is written after ignoreTerminalStops)
// is killed at its limit (137) and leaves no process. The test looks 4s
// after the start, 2s past the limit.
//
// Severity: medium (max_duration / memory limit unenforced; needs a
// background run on a tostop terminal with a manifest that warns, not the
// sandboxed program's own doing; README promises SIGTTOU is ignored while
// the program runs).
// Fix: ignore SIGTTIN/SIGTTOU from before supervise.Start (and Manager.Start
// in exec) launches the program, e.g. around the launch with a way to put
// them back for the approval prompt, or queue Start's notices until
// ignoreTerminalStops has run.
// Fixed: runAgent calls ignoreTerminalStops before supervise.Start (after
// the vault prompt); the approval prompt gets SIGTTIN/SIGTTOU back for its
// own read (withTerminalStops), before the launch it gates.
func TestRedteam29RunBackgroundWarningStops(t *testing.T) {
	runEnv(t)
	for _, tc := range []struct {
		name     string
		manifest string
	}{
		{"control_no_warning", "name: rt29-bg\nlimits: {max_duration: 2s}\n"},
		{"warning_in_start", "name: rt29-bg\nlimits: {max_duration: 2s, max_tokens: 1000}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := writeManifest(t, tc.manifest)
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			mark := "rt29bg-" + hex.EncodeToString(b)
			bg := startBackground(t, rt29BackgroundLauncher, "run", "--manifest", m, "--", "/usr/bin/perl", "-e", "sleep 60", mark)
			pid, out := bg.pid, bg.out
			t.Cleanup(func() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				for _, p := range marked(mark) {
					if n, err := strconv.Atoi(p); err == nil {
						_ = syscall.Kill(n, syscall.SIGKILL)
					}
				}
			})
			time.Sleep(4 * time.Second)
			var running []string
			for _, p := range marked(mark) {
				if p == strconv.Itoa(pid) {
					continue
				}
				if st := procState(p); st != "T" && st != "t" {
					running = append(running, p+":"+st)
				}
			}
			state := procState(strconv.Itoa(pid))
			_ = syscall.Kill(pid, syscall.SIGCONT)
			if len(running) > 0 {
				// Resumed in the background, agentbox retries the write and
				// is stopped again: it stays so until brought to the front.
				time.Sleep(time.Second)
				t.Fatalf("background run, 2s past max_duration: agentbox in state %q (%q 1s after SIGCONT), the tree runs on unsupervised: %v; terminal %q",
					state, procState(strconv.Itoa(pid)), running, out.String())
			}
			code, ok := bg.launcherExit(t, 30*time.Second)
			if !ok {
				t.Fatalf("background run still running 30s after SIGCONT; terminal %q", out.String())
			}
			if code != exitKilled {
				t.Errorf("exit %d, want 137; terminal %q", code, out.String())
			}
			time.Sleep(200 * time.Millisecond)
			if left := marked(mark); len(left) > 0 {
				t.Errorf("after agentbox exited %d: tree left %v", code, left)
			}
		})
	}
}
