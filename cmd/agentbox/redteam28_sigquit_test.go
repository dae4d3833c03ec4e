//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"syscall"
	"testing"
	"time"
)

// TestRedteam28RunSigquitSwallowed: `agentbox run` catches SIGQUIT from its
// first instant (stopSignals: INT, TERM, HUP, QUIT; README: "agentbox got
// stop signal N (INT, TERM, HUP, QUIT ...)") and relays it to the agent,
// but the supervisor's grace period and second-signal kill
// (supervise.isTerminate) only know INT, TERM and HUP. An agent that
// ignores SIGQUIT (one line of code; here it also forks a setsid'd child)
// is then unstoppable by SIGQUIT: the user's ^\, sent twice, does nothing;
// run keeps running and in the end exits 0 as if nothing had been asked.
// Before main caught SIGQUIT, Go's default action ended agentbox and its
// tree with it; now the signal is swallowed. The test sends SIGQUIT twice
// (as SIGHUP in the control) and wants run ended within grace + a wide
// bound, with 137 and no process of the tree left. Control: SIGHUP the
// same way ends it (137, "second SIGHUP").
//
// Severity: medium (a stop signal agentbox claims to handle neither stops
// the agent nor escalates; the agent outlives the user's stop request).
// Fix: supervise treats SIGQUIT as a terminating signal too (grace timer
// and second-signal kill), or the CLI does not catch what it cannot
// escalate.
//
// Fixed: supervise.isTerminate (its terminating table) includes SIGQUIT:
// the first one starts the grace period, a second kills the tree (137).
func TestRedteam28RunSigquitSwallowed(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: rt28-quit\n")
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			mark := "rt28quit-" + hex.EncodeToString(b)
			p := startCLI(t, "run", "--grace", "1s", "--manifest", m, "--", "/usr/bin/perl", "-e",
				`$SIG{INT}=$SIG{TERM}=$SIG{HUP}=$SIG{QUIT}="IGNORE"; if (!fork) { require POSIX; POSIX::setsid(); sleep 40; exit } sleep 40`, mark)
			waitAgents(t, 1)
			time.Sleep(500 * time.Millisecond)
			_ = p.cmd.Process.Signal(sig)
			time.Sleep(300 * time.Millisecond)
			_ = p.cmd.Process.Signal(sig)
			select {
			case <-p.done:
			case <-time.After(15 * time.Second):
				t.Fatalf("%v twice to run (grace 1s): still running 15s later, tree %v; stderr %q", sig, marked(mark), p.stderr.String())
			}
			code := p.wait(t, time.Second)
			if code != exitKilled {
				t.Errorf("%v twice: exit %d, want 137; stderr %q", sig, code, p.stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
			if left := marked(mark); len(left) > 0 {
				t.Errorf("%v: tree left %v", sig, left)
			}
		})
	}
}
