//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Red-team session 23 (Process.Wait after the program exited by itself,
// the CLI's exit status): Wait now keeps watching the timeout while the
// copies of the program's output are still going after the program exited
// on its own (awaitCopies); at the timeout it gives them 2 s, then
// returns ErrTimeout with TimedOut set and the program's own exit code.
// `agentbox exec` (execDone) exits with res.ExitCode and ignores the
// error: a command that finished well within its --timeout, whose output
// was still on its way to a slow reader of agentbox's stdout, has its
// output cut at the timeout, agentbox prints "agentbox: killed after
// --timeout" (it was not killed) and exits 0, as for a complete run.
//
// `agentbox exec --timeout 60s -- make-report | slow-upload` (or
// `… > fifo`) then hands on a truncated stream with a success status:
// `set -o pipefail`, `&&` and CI all take it as complete. The control
// without agentbox, `timeout 2 sh -c '…' | slow`, exits 124 when the
// output does not get through in time (the command is still blocked
// writing when it is killed), and without --timeout agentbox delivers
// every byte (the control below).
//
// The test runs `head -c 100000 /dev/zero` (it exits at once: agentbox's
// pipe and the caller's take its output) with --timeout 2s, agentbox's
// stdout a pipe nobody reads for 6 s. Expected: every byte delivered, or
// a failing exit status (137 or another non-zero) when the output was
// cut.
//
// Severity: medium (silent truncation of a command's output reported as
// success by the CLI; data integrity of legitimate work, no escape); root
// and unprivileged callers.
//
// A fix: execDone (and run's equivalent) must not exit 0 when Wait
// returned an error, TimedOut set included: e.g. exit 137 (or 124) when
// the timeout cut the output, as the notice already says; or Wait should
// not cut a copy that still makes progress after the program exited in
// time.
//
// Fixed: execDone exits 137 when the timeout cut the output of a command
// that ended by itself, and says so instead of "killed".
func TestRedteam23ExecTimeoutCutsOutputExitsZero(t *testing.T) {
	const size = 100000
	for _, tc := range []struct {
		name    string
		timeout []string
	}{
		{"control: no timeout", nil},
		{"a 2s timeout, the command done at once", []string{"--timeout", "2s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"exec", "--profile", "ci", "--approve", "--workdir", "/"}, tc.timeout...)
			args = append(args, "--", "/bin/sh", "-c", "head -c 100000 /dev/zero")
			c := exec.Command(os.Args[0], args...)
			c.Env = append(os.Environ(), cliEnv+"=1")
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var errOut strings.Builder
			c.Stdout, c.Stderr = wr, &errOut
			start := time.Now()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			wr.Close()
			time.Sleep(6 * time.Second) // a slow reader
			got, _ := io.Copy(io.Discard, rd)
			err = c.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			t.Logf("euid %d: exit %d after %v, %d of %d bytes delivered, stderr %q", os.Geteuid(), code, time.Since(start).Round(time.Millisecond), got, size, errOut.String())
			if got != size && code == 0 {
				t.Errorf("agentbox exec cut the command's output (%d of %d bytes) and exited 0, as for a complete run (stderr %q)", got, size, errOut.String())
			}
			if tc.timeout == nil && (got != size || code != 0) {
				t.Errorf("control: exit %d, %d of %d bytes", code, got, size)
			}
		})
	}
}
