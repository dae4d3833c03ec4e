//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt16HideScript runs in sandbox B. Each time agentbox's repository scan
// of the shared root W lists aaa (inotify IN_OPEN), B moves pkgs, which
// holds the user's nested repository pkgs/lib, into node_modules (whose
// inside the scan skips) for a moment and back: A's pre-run scan then does
// not see pkgs/lib/.git (so A's sandbox does not protect its hooks), nor
// does A's post-run sweep (so what A's command planted is not disabled).
const rt16HideScript = `
import ctypes, os, sys, time, select
W = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0o4000)
if libc.inotify_add_watch(fd, (W + "/aaa").encode(), 0x20) < 0:
    print("watch failed"); sys.exit(3)
open(W + "/ready", "w").close()
def hide_once():
    if not select.select([fd], [], [], 15)[0]:
        print("no scan"); sys.exit(4)
    os.rename(W + "/pkgs", W + "/node_modules/pkgs")
    time.sleep(0.15)
    try:
        while True: os.read(fd, 65536)
    except BlockingIOError:
        pass
    os.rename(W + "/node_modules/pkgs", W + "/pkgs")
hide_once()   # A's scan before its command
print("hid from the pre-run scan", flush=True)
deadline = time.time() + 15
while not os.path.exists(W + "/go"):
    if time.time() > deadline: print("no go"); sys.exit(5)
    time.sleep(0.002)
try:
    while True: os.read(fd, 65536)
except BlockingIOError:
    pass
hide_once()   # A's sweep after its command
print("hid from the sweep", flush=True)
`

// TestRedteam16NestedRepoHiddenFromScans: a concurrent sandbox hides the
// user's nested repository from the other sandbox's scans, and the other
// sandbox's command plants a hook in it, which stays. Control: the same
// command without the concurrent sandbox is refused the hook. Held: B
// cannot move pkgs (EBUSY), the directories on the way to its own
// protected pkgs/lib/.git being pinned in its sandbox.
func TestRedteam16NestedRepoHiddenFromScans(t *testing.T) {
	setup := func(t *testing.T) (w, hook string) {
		w = hostDir(t)
		if err := os.Chmod(w, 0o777); err != nil {
			t.Fatal(err)
		}
		lib := filepath.Join(w, "pkgs", "lib")
		if err := os.MkdirAll(lib, 0o777); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("git", "init", "-q", lib).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		for _, d := range []string{"aaa", "node_modules", "pkgs", "pkgs/lib", "pkgs/lib/.git/hooks"} {
			p := filepath.Join(w, d)
			os.MkdirAll(p, 0o777)
			os.Chmod(p, 0o777)
		}
		for i := range 400 {
			if err := os.Mkdir(filepath.Join(w, "ab"+itoa(1000+i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return w, filepath.Join(lib, ".git", "hooks", "post-checkout")
	}
	cmdA := func(hook string) string {
		return "for i in $(seq 100); do [ -d pkgs/lib/.git/hooks ] && break; sleep 0.02; done; " +
			"printf '#!/bin/sh\\ntouch PWNED\\n' > " + hook + "; touch go; sleep 0.3"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()

	t.Run("control_alone", func(t *testing.T) {
		w, hook := setup(t)
		m := newManager(t, agentbox.CIConfig())
		res, err := m.Exec(ctx, cmdA(hook), agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(hook); err == nil {
			t.Errorf("control: the hook was planted without the other sandbox: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(w, "go")); err != nil {
			t.Errorf("control: the command did not run: %+v", res)
		}
	})

	t.Run("attack", func(t *testing.T) {
		w, hook := setup(t)
		script := filepath.Join(w, "hide.py")
		if err := os.WriteFile(script, []byte(rt16HideScript), 0o644); err != nil {
			t.Fatal(err)
		}
		mA, mB := newManager(t, agentbox.CIConfig()), newManager(t, agentbox.CIConfig())
		var wg sync.WaitGroup
		var resB *agentbox.ExecResult
		var errB error
		wg.Add(1)
		go func() {
			defer wg.Done()
			resB, errB = mB.ExecArgs(ctx, "/usr/bin/python3", []string{script, w},
				agentbox.WithWritableRoots(w), agentbox.WithTimeout(30*time.Second))
		}()
		for i := 0; ; i++ {
			if _, err := os.Stat(filepath.Join(w, "ready")); err == nil {
				break
			}
			if i > 1500 {
				wg.Wait()
				t.Fatalf("sandbox B never got ready: %v %+v", errB, resB)
			}
			time.Sleep(10 * time.Millisecond)
		}
		resA, err := mA.Exec(ctx, cmdA(hook), agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w))
		if err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if errB != nil {
			t.Fatal(errB)
		}
		t.Logf("A: exit %d %q violations %+v", resA.ExitCode, resA.Stderr, resA.Violations)
		t.Logf("B: exit %d out %q err %q violations %+v", resB.ExitCode, resB.Stdout, resB.Stderr, resB.Violations)
		if b, err := os.ReadFile(hook); err == nil {
			t.Errorf("ESCAPE: the user's nested repository has a hook the command planted, not disabled: %s: %q", hook, b)
		}
	})
}
