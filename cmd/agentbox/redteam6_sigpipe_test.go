//go:build linux

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestRedteam6BreachWithClosedStderr runs `agentbox run` with its stderr a
// pipe, as in `agentbox run ... 2>&1 | head -n 20`: once the reader has
// gone (head has its lines, a log shipper restarts), the agent overruns
// max_duration. The run must still kill the tree, log limit_breached,
// agent_killed and agent_exit and exit 137, as the control (a reader that
// stays) does. agentbox writes the breach's notice on its stderr before it
// logs the breach, and Go kills a program that writes to a broken pipe on
// fd 1 or 2 with SIGPIPE unless it handles the signal: the supervisor dies
// (exit 141), nothing of the breach is in the audit log and the registry
// keeps a stale record.
//
// Fixed: run handles SIGPIPE, and logs a breach before it prints the notice.
func TestRedteam6BreachWithClosedStderr(t *testing.T) {
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
			state := runEnv(t)
			m := writeManifest(t, "name: rt6-pipe\nlimits: {max_duration: 1s}\n")
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 8")
			cmd.Env = append(os.Environ(), cliEnv+"=1")
			cmd.Stderr = wr // fd 2 of agentbox itself
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wr.Close()
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			br := bufio.NewReader(rd)
			line, err := br.ReadString('\n')
			if err != nil || !strings.Contains(line, "started") {
				t.Fatalf("first line %q: %v", line, err)
			}
			var rest strings.Builder
			drained := make(chan struct{})
			if tc.readerGone {
				rd.Close()
				close(drained)
			} else {
				go func() {
					b := make([]byte, 4096)
					for {
						n, err := br.Read(b)
						rest.Write(b[:n])
						if err != nil {
							break
						}
					}
					rd.Close()
					close(drained)
				}()
			}
			var werr error
			select {
			case werr = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("agentbox run still running 15 s after a 1 s duration limit")
			}
			<-drained
			code := 0
			var ee *exec.ExitError
			if errors.As(werr, &ee) {
				code = ee.ExitCode()
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					code = 128 + int(ws.Signal())
				}
			} else if werr != nil {
				t.Fatal(werr)
			}
			evs, err := audit.Query(filepath.Join(state, "logs", "rt6-pipe.log"), audit.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range evs {
				types = append(types, e.EventType)
			}
			got := strings.Join(types, " ")
			if code != 137 || !strings.Contains(got, audit.LimitBreached) || !strings.Contains(got, audit.AgentKilled) || !strings.Contains(got, audit.AgentExit) {
				what := "control"
				if tc.readerGone {
					what = "ATTACK SUCCEEDED: the supervisor died on its own stderr and the breach went unrecorded"
				}
				t.Errorf("%s: exit %d (want 137), audit events %q (want limit_breached, agent_killed, agent_exit); stderr after the start line %q",
					what, code, got, rest.String())
			}
		})
	}
}
