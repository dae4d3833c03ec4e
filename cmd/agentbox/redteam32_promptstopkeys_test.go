//go:build linux

package main

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRedteam32StopKeysAtApprovalPrompt: at `agentbox exec`'s approval
// prompt (foreground), the user presses ^Z (the notice is printed, nothing
// runs, agentbox does not stop), then ^\ (SIGQUIT): agentbox must exit 131
// with nothing started and the terminal's echo on. Control: "y" runs the
// command. Held (kept: covers ^Z followed by another stop key, and
// SIGQUIT's status, at the approval prompt).
func TestRedteam32StopKeysAtApprovalPrompt(t *testing.T) {
	runEnv(t)
	const script = `echo RAN-rt32q-$((6*7)); git push 2>/dev/null; exit 0`
	argv := []string{"exec", "-c", script}
	tm := startSession(t, false, argv...)
	if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
		t.Fatalf("control: no approval prompt; terminal %q", tm.shown())
	}
	_, _ = tm.master.Write([]byte("y\r"))
	if !tm.waitFor("RAN-rt32q-42", 30*time.Second) {
		t.Fatalf("control: the approved command did not run; terminal %q", tm.shown())
	}
	tm.status(t, 30*time.Second)

	tm = startSession(t, false, argv...)
	if !tm.waitFor("Run it? [y/N]", 30*time.Second) {
		t.Fatalf("no approval prompt; terminal %q", tm.shown())
	}
	time.Sleep(300 * time.Millisecond)
	_, _ = tm.master.Write([]byte{0x1a}) // ^Z
	if !tm.waitFor("ignored at the approval prompt", 10*time.Second) {
		t.Errorf("^Z at the prompt: no notice; terminal %q", tm.shown())
	}
	if _, ended := tm.status(t, time.Second); ended {
		t.Fatalf("^Z ended agentbox; terminal %q", tm.shown())
	}
	_, _ = tm.master.Write([]byte{0x1c}) // ^\
	code, ended := tm.status(t, 15*time.Second)
	if !ended || code != 131 {
		t.Fatalf("^\\ at the prompt after ^Z: ended %v, exit %d, want 131; terminal %q", ended, code, tm.shown())
	}
	if strings.Contains(tm.shown(), "RAN-rt32q-42") {
		t.Errorf("the command ran; terminal %q", tm.shown())
	}
	tio, err := unix.IoctlGetTermios(int(tm.master.Fd()), unix.TCGETS)
	if err == nil && tio.Lflag&unix.ECHO == 0 {
		t.Errorf("echo left off")
	}
}
