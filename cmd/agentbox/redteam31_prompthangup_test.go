//go:build linux

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRedteam31HangupAtApprovalPrompt: the user's terminal goes away
// (the ssh link drops, the window is closed) while `agentbox exec` waits
// at the approval prompt of an escalated command. The kernel hangs the
// terminal up: the prompt's read fails and agentbox, its session leader,
// gets SIGHUP. Either way nobody approved the command, so it must never
// run, and agentbox must end (129 for the SIGHUP, or the refusal's 126),
// not linger with a left-behind read. The escalated command ignores
// SIGHUP and SIGINT and leaves a marker file, so that a start followed by
// a relayed signal would still show. Control: "y" typed at the prompt runs
// it (the marker appears).
//
// Held (new coverage: hangup of the terminal at the approval prompt, not
// a signal from a key or a process).
func TestRedteam31HangupAtApprovalPrompt(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := `trap "" INT HUP; sleep 1; echo x > ` + marker + `; git push 2>/dev/null; exit 0`
	argv := []string{"exec", "--write", dir, "-c", script}

	// Control: approved, it runs.
	tm := startSession(t, true, argv...)
	if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
		t.Fatalf("control: no approval prompt; terminal %q", tm.shown())
	}
	if _, err := tm.master.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	if _, ok := tm.status(t, 30*time.Second); !ok {
		t.Fatalf("control: agentbox still running; terminal %q", tm.shown())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: the approved command did not run (%v); terminal %q", err, tm.shown())
	}
	os.Remove(marker)

	// Attack: the terminal hangs up at the prompt.
	tm = startSession(t, true, argv...)
	if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
		t.Fatalf("no approval prompt; terminal %q", tm.shown())
	}
	seen := tm.shown()
	tm.master.Close()
	code, ended := tm.status(t, 30*time.Second)
	if !ended {
		t.Fatalf("agentbox still running 30s after its terminal hung up at the approval prompt; terminal %q", seen)
	}
	if code != 128+int(syscall.SIGHUP) && code != 126 {
		t.Errorf("hangup at the approval prompt: exit %d, want 129 (or 126, refused)", code)
	}
	time.Sleep(3 * time.Second) // a started command would write its marker after 1s
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the escalated command ran although its terminal hung up at the approval prompt (exit %d)", code)
	}
}
