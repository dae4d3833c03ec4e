//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestRedteam28ExecTimeoutClosedStderr runs `agentbox exec --timeout 2s`
// with its stderr a pipe whose reader has gone, as in
// `agentbox exec --timeout 2s -- make 2>&1 | head -n 20` once head has its
// lines. The command overruns the timeout and agentbox kills its tree: the
// exit status must be 137 (DESIGN.md: "137 when agentbox killed it
// (limit, timeout, kill switch)"), as in the control, whose reader stays.
// exec, unlike run (TestRedteam6BreachWithClosedStderr), does not handle
// SIGPIPE: its "killed after --timeout" line on the broken stderr makes Go
// end agentbox by SIGPIPE, so the caller sees 141 ("the command died of
// SIGPIPE") instead of 137, and a script retrying on 137 or treating
// 128+N as the command's own death is misled. The same holds for any
// status whose notes (violations, hints, degraded layers) exec prints
// after the command: the command's own status is lost.
//
// Severity: low (the tree is killed; only the status contract breaks).
// Fix: exec handles SIGPIPE like run (signal.Notify for SIGPIPE), so a
// write to a broken stderr fails instead of ending agentbox.
//
// Fixed: main handles SIGPIPE for run and exec alike (survivePipeReaders,
// for the whole process), so the write fails and exec exits 137.
func TestRedteam28ExecTimeoutClosedStderr(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		readerGone bool
	}{
		{"reader_stays", false},
		{"reader_gone", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnv(t)
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			cmd := exec.Command(exe, "exec", "--timeout", "2s", "--", "/bin/sleep", "30")
			cmd.Env = append(os.Environ(), cliEnv+"=1")
			cmd.Stderr = wr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wr.Close()
			if tc.readerGone {
				rd.Close()
			} else {
				go func() {
					b := make([]byte, 4096)
					for {
						if _, err := rd.Read(b); err != nil {
							return
						}
					}
				}()
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("agentbox exec still running 60s after a 2s timeout")
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) {
				t.Fatalf("exit: %v, want status 137", werr)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				t.Fatalf("agentbox itself died of %v (shell status %d), want exit 137 for the timeout kill", ws.Signal(), 128+int(ws.Signal()))
			}
			if ws.ExitStatus() != exitKilled {
				t.Fatalf("exit %d, want 137", ws.ExitStatus())
			}
		})
	}
}

// TestRedteam28ExecJSONClosedStdout: `agentbox exec --json -- sh -c 'exit 3'`
// with its stdout a pipe whose reader has gone. The command ran and exited
// 3; the JSON cannot be delivered. Contract (DESIGN.md): the exit status is
// the command's own, or 125 when agentbox itself failed. Control: a reader
// that stays gets exit 3. With the reader gone agentbox dies of SIGPIPE
// (141 to a shell): neither the command's status nor agentbox's own
// failure status.
//
// Severity: low. Fix: handle SIGPIPE in exec, and map the failed write
// to 125 (agentbox could not deliver the result).
//
// Fixed: survivePipeReaders (main, for run and exec); the failed encode
// is exit 125.
func TestRedteam28ExecJSONClosedStdout(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []bool{false, true} {
		runEnv(t)
		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "exec", "--json", "--", "/bin/sh", "-c", "exit 3")
		cmd.Env = append(os.Environ(), cliEnv+"=1")
		cmd.Stdout = wr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wr.Close()
		if gone {
			rd.Close()
		} else {
			go func() {
				b := make([]byte, 4096)
				for {
					if _, err := rd.Read(b); err != nil {
						return
					}
				}
			}()
		}
		werr := cmd.Wait()
		rd.Close()
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			t.Fatalf("reader gone %v: exit %v, want 3 or 125", gone, werr)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			t.Errorf("reader gone %v: agentbox died of %v (shell status %d); want the command's 3 or agentbox's own 125", gone, ws.Signal(), 128+int(ws.Signal()))
			continue
		}
		if c := ws.ExitStatus(); c != 3 && !(gone && c == exitInternal) {
			t.Errorf("reader gone %v: exit %d, want 3", gone, c)
		}
	}
}
