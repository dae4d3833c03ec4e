package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphanLauncher starts ARGV[1:] in a process group of its own whose
// parent exits at once: the group is orphaned (no member has a parent in
// the session outside it) while the session leader, this script, stays.
// It writes the pid to fd 3.
const orphanLauncher = `
import os, sys, time
mid = os.fork()
if mid == 0:
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.execv(sys.argv[1], sys.argv[1:])
    os.write(3, (str(pid) + "\n").encode())
    os._exit(0)
os.close(3)
os.waitpid(mid, 0)
time.sleep(60)
`

// TestBackgroundPromptInOrphanedGroupRefuses: the kernel discards the
// stop signals of an orphaned process group, so the approval prompt of a
// background agentbox whose parent has gone cannot wait stopped for the
// foreground: it refuses at once, and nothing runs, rather than waking
// every second for ever. (awaitForeground; the foreground prompt beside it
// is TestRedteam32KillStoppedBackgroundPrompt's control.)
func TestBackgroundPromptInOrphanedGroupRefuses(t *testing.T) {
	runEnv(t)
	b := startBackground(t, orphanLauncher, "exec", "-c", "echo RAN-orphan-$((6*7)); git push 2>/dev/null")
	pid, out := b.pid, b.out
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	gone := false
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if st := procState(strconv.Itoa(pid)); st == "" || st == "Z" {
			gone = true
			break
		}
	}
	if !gone {
		t.Fatalf("agentbox in an orphaned background group still waits at its prompt 20 s on (state %q); terminal %q", procState(strconv.Itoa(pid)), out.String())
	}
	// The terminal's copy runs on its own: the refusal's line may reach
	// it after the process is gone (a loaded machine).
	for end := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "needs approval") && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(out.String(), "RAN-orphan-42") || !strings.Contains(out.String(), "needs approval") {
		t.Errorf("want the command refused with a line saying it needs approval, not run; terminal %q", out.String())
	}
}
