//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// rt6HostileTree builds a tree meant to outlive a kill: a child subreaper
// adopting a double-forked grandchild in a session of its own, a process
// that stops itself with SIGSTOP, one that ignores every signal it may, a
// parent blocked in vfork, and a fork loop that replaces its children as
// fast as it can (a tree growing while it is killed). Then it prints
// "ready" and sleeps.
const rt6HostileTree = `
import os, sys, time, signal, ctypes
libc = ctypes.CDLL(None, use_errno=True)
def child(fn):
    if os.fork() == 0:
        try:
            fn()
        finally:
            os._exit(0)
def subreaper():
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(300)
        os._exit(0)
    time.sleep(300)
def stopper():
    os.setsid()
    os.kill(os.getpid(), signal.SIGSTOP)
    time.sleep(300)
def deaf():
    for s in range(1, 65):
        try:
            signal.signal(s, signal.SIG_IGN)
        except (OSError, ValueError):
            pass
    time.sleep(300)
def vforker():
    # posix_spawn: a vfork-style clone, its child in a session of its own.
    os.posix_spawn("/bin/sleep", ["sleep", "300"], {}, setsid=True)
    time.sleep(300)
def forkloop():
    while True:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.001)
            continue
        if pid == 0:
            if os.fork() == 0:
                time.sleep(300)
            os._exit(0)
        os.waitpid(pid, 0)
for fn in (subreaper, stopper, deaf, vforker, forkloop):
    child(fn)
time.sleep(0.3)
print("ready", flush=True)
time.sleep(300)
`

// TestRedteam6HostileTreeDies: the tree above is ended by `agentbox kill`
// from another process and by a duration limit: every process of its pid
// namespace is gone, the run exits 137 and logs agent_killed with the
// right cause. The control: the same run before the kill lists the tree
// (the processes really were there).
func TestRedteam6HostileTreeDies(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-rt6tree-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "tree.py")
	if err := os.WriteFile(script, []byte(rt6HostileTree), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, manifest, cause string
	}{
		{"kill_switch", "name: rt6-tree\n", "kill_switch"},
		{"max_duration", "name: rt6-tree\nlimits: {max_duration: 3s}\n", "max_duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := runEnv(t)
			m := writeManifest(t, tc.manifest)
			a := startCLI(t, "run", "--manifest", m, "--", "/usr/bin/python3", script)
			a.waitOutput(t, "ready")
			rec := waitAgents(t, 1)[0]
			ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", rec.InitPid))
			if err != nil {
				t.Fatal(err)
			}
			n := len(nsProcs(t, ns))
			if n < 8 {
				t.Fatalf("control: the hostile tree has only %d processes", n)
			}
			t.Logf("%d processes in the tree", n)
			if tc.name == "kill_switch" {
				if code, out, errOut := runCLI(t, "kill", rec.ID); code != 0 {
					t.Fatalf("kill: exit %d %q %q", code, out, errOut)
				}
				if left := nsProcs(t, ns); len(left) != 0 {
					t.Errorf("ESCAPE: processes %v outlived agentbox kill", left)
				}
			}
			if code := a.wait(t, 15*time.Second); code != exitKilled {
				t.Errorf("run exited %d, want 137; stderr %q", code, a.stderr.String())
			}
			if left := nsProcs(t, ns); len(left) != 0 {
				t.Errorf("ESCAPE: processes %v outlived the run", left)
			}
			killed, err := audit.Query(filepath.Join(state, "logs", "rt6-tree.log"), audit.Filter{Type: audit.AgentKilled})
			if err != nil || len(killed) != 1 || killed[0].Rule != tc.cause {
				t.Errorf("agent_killed events %+v %v, want one with rule %s", killed, err, tc.cause)
			}
			if strings.Contains(a.stdout.String(), "Traceback") {
				t.Errorf("the tree did not build: %s", a.stdout.String())
			}
		})
	}
}
