//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// Red-team tests (redteam4) of attacks that succeed today: each fails until
// the problem it shows is fixed.

// rt4Exited reports whether p ended within d.
func rt4Exited(p *cliProcess, d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestRedteam4VerifyAndAuditCLIOnAFIFO: "agentbox verify" and "agentbox
// audit" of a named pipe wait in open(2) for a writer that never comes, and
// the SIGTERM or SIGINT an operator or a supervisor then sends does not end
// them either: main catches both into a context that nothing reads.
func TestRedteam4VerifyAndAuditCLIOnAFIFO(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	// Control: a real log verifies at once.
	logPath := filepath.Join(dir, "real.log")
	l, err := audit.Open(logPath, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(context.Background(), audit.Event{EventType: audit.CommandExec, Allowed: true}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if p := startCLI(t, "verify", logPath); !rt4Exited(p, 15*time.Second) || p.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("control: verify of a real log: %q %q", p.stdout.String(), p.stderr.String())
	}
	fifo := filepath.Join(dir, "pipe.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify", fifo}, {"audit", "--log", fifo}} {
		p := startCLI(t, args...)
		if rt4Exited(p, 5*time.Second) {
			continue // refused the pipe: the fix
		}
		t.Errorf("attack succeeded: agentbox %s still running after 5 s", strings.Join(args, " "))
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			_ = p.cmd.Process.Signal(sig)
			if rt4Exited(p, 5*time.Second) {
				break
			}
			t.Errorf("... and still running 5 s after %v", sig)
		}
	}
}

// TestRedteam4RunWithAFIFOLockFile: whoever may create files in the audit
// log's directory can make FILE.lock a named pipe; "agentbox run" then
// hangs in open(2) before the agent starts, past the 30 s bound on waiting
// for the writers' lock, and SIGTERM does not end it.
func TestRedteam4RunWithAFIFOLockFile(t *testing.T) {
	runEnv(t)
	logs := t.TempDir()
	logPath := filepath.Join(logs, "agent.log")
	m := writeManifest(t, "name: lockpipe\naudit: {log_path: \""+logPath+"\"}\n")
	// Control: the run works with a normal lock file.
	if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
		t.Fatalf("control: exit %d %s", code, errOut)
	}
	if err := os.Remove(logPath + audit.WritersLockSuffix); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(logPath+audit.WritersLockSuffix, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startCLI(t, "run", "--manifest", m, "--", "/bin/true")
	if !rt4Exited(p, 45*time.Second) {
		t.Errorf("attack succeeded: agentbox run still starting after 45 s with %s a FIFO (stderr %q)", logPath+audit.WritersLockSuffix, p.stderr.String())
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if !rt4Exited(p, 5*time.Second) {
			t.Errorf("... and still running 5 s after SIGTERM")
		}
		return
	}
	if code := p.cmd.ProcessState.ExitCode(); code != exitInternal || !bytes.Contains([]byte(p.stderr.String()), []byte(".lock")) {
		t.Errorf("run with a FIFO lock file: exit %d, stderr %q; want 125 naming the lock file", code, p.stderr.String())
	}
}
