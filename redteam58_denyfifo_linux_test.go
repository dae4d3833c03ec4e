//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam58DenyParentFIFOHangsLaterCalls: a sandboxed command that may
// write a project (a policy that does not deny its secrets directory)
// leaves a FIFO where a directory of deny paths lies:
//
//	mkfifo secrets        # or: rm -rf secrets && mkfifo secrets
//
// A later call with a tighter policy (the same project's secrets denied:
// WithDenyRead of four files in secrets/, with or without writable roots,
// with a timeout) never returns. Before its sandbox exists, agentbox
// resolves every path of the policy on the host (fspaths.go: resolver);
// after listAfter (4) lookups below one directory, resolver.lstat reads
// that directory whole with readTypes, which opens it with os.Open: no
// O_DIRECTORY, no O_NONBLOCK. Open(2) of a FIFO blocks until a writer
// comes, and the sandbox that made it is gone. The call hangs for good —
// its WithTimeout and its context are not consulted while the spec is
// built — and so does every later call of that policy, and `agentbox
// exec` with the same flags, until someone removes the FIFO (by hand:
// `agentbox exec --timeout 3s` with four --deny-read below such a FIFO
// hung for ten minutes; the SIGTERM timeout(1) sent it at 10 s was caught
// and held for a command that never starts, so only SIGKILL ends it). The same
// holds for any directory four policy paths go through (deny paths,
// writable roots, scratch directories): the default deny list alone looks
// up 53 names below ~/.config, 14 below ~/.local/share, 4 below ~/.cargo.
// agentbox's other host-side reads of what a command shaped open without
// blocking or with O_DIRECTORY (hostread.go, gitscan_linux.go); this one
// does not.
//
// Severity: medium (a sandboxed command hangs the host's agentbox on
// every later call of a tighter policy: a denial of service that outlives
// the command). Holds for an unprivileged caller too (the FIFO is the
// user's own, readable).
//
// Found by red-team round 58. Fixed: every open that lists such a
// directory refuses anything else without blocking (internal/dirlist: openDir;
// sandbox/linux/landlock.go: cover), and a deny path below a
// non-directory is one that cannot exist (plan_protect.go: mask).
//
// Control: the same tighter call on a project whose secrets directory is
// a directory returns at once, its program run. Premise: the FIFO is on
// the host after the first command, and a non-blocking open for writing,
// which succeeds only while a reader waits on it, releases the stuck call
// (which then fails: "not a directory").
func TestRedteam58DenyParentFIFOHangsLaterCalls(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{} // the sandbox is under test, not the classifier
	m := newManager(t, cfg)
	denied := func(w string) []string {
		var out []string
		for _, n := range []string{"id_deploy", "prod.env", "staging.env", "token"} {
			out = append(out, filepath.Join(w, "secrets", n))
		}
		return out
	}
	tight := func(w string) chan string {
		done := make(chan string, 1)
		go func() {
			res, err := m.Exec(context.Background(), "echo RAN",
				agentbox.WithDenyRead(denied(w)...), agentbox.WithWorkingDir("/"), agentbox.WithTimeout(5*time.Second))
			if err != nil {
				done <- "error: " + err.Error()
				return
			}
			done <- res.Stdout
		}()
		return done
	}

	// Control: the secrets directory is a directory.
	ctl := hostDir(t)
	if err := os.Mkdir(filepath.Join(ctl, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctl, "secrets", "token"), []byte("TOKEN58"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-tight(ctl):
		if !strings.Contains(s, "RAN") {
			t.Fatalf("control: the tighter call did not run: %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("control: the tighter call did not return")
	}

	// The looser command on the project leaves a FIFO named secrets.
	w := hostDir(t)
	res, err := m.Exec(context.Background(), "mkfifo secrets && echo MADE",
		agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(30*time.Second))
	if err != nil || !strings.Contains(res.Stdout, "MADE") {
		t.Fatalf("premise: the first command: %v %+v", err, res)
	}
	fifo := filepath.Join(w, "secrets")
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("premise: %s is not a FIFO on the host: %v", fifo, err)
	}

	done := tight(w)
	select {
	case s := <-done:
		if !strings.Contains(s, "RAN") {
			t.Errorf("the tighter call returned, but did not run: %q", s)
		}
		return
	case <-time.After(20 * time.Second):
	}
	t.Errorf("a call denying four files in %s did not return in 20 s (its timeout: 5 s): agentbox blocks opening the FIFO the earlier command left there (fspaths.go: readTypes)", fifo)
	fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("premise: no reader waits on the FIFO (%v): the call is stuck elsewhere", err)
	}
	syscall.Close(fd)
	select {
	case s := <-done:
		t.Logf("released by a writer on the FIFO, the call returned: %q", s)
	case <-time.After(20 * time.Second):
		t.Log("the call is still stuck after a writer opened the FIFO")
	}
}
