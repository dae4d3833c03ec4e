//go:build linux

package linux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// TestWatchHandedToParent: the init's mount-watch inotify instance is held
// by the parent too (watchshare.go). A killed init dies while the parent
// still holds the instance, so the init's death never waits for its
// teardown; an init that reports the program's exit waits for the parent
// to let go of it first, and only that long. Either way nothing stays
// open in the parent. Warm and cold inits alike.
func TestWatchHandedToParent(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	held := make(chan *os.File, 4)
	for _, cold := range []bool{false, true} {
		r := &Runtime{ColdStart: cold, keepLastWatch: func(w *os.File) { held <- w }}
		defer r.Close()
		name := map[bool]string{false: "warm", true: "cold"}[cold]
		t.Run(name+"/exit", func(t *testing.T) {
			base := inotifyFDs(t)
			h, w := startWatched(t, r, "touch started; sleep 0.2")
			defer h.Close()
			waitFor(t, filepath.Join(w, "started"))
			if n := inotifyFDs(t); n != base+1 {
				t.Errorf("the parent holds %d inotify instances while the program runs, want %d", n, base+1)
			}
			st, err := h.Wait()
			if err != nil || st.Code != 0 {
				t.Fatalf("wait: %+v %v", st, err)
			}
			// Without the parent's release the init would wait releaseWait.
			select {
			case <-h.reaped:
			case <-time.After(releaseWait * 3 / 4):
				t.Fatal("the init did not exit once it had reported the program's exit")
			}
			if n := inotifyFDs(t); n != base {
				t.Errorf("the parent holds %d inotify instances after the sandbox, want %d", n, base)
			}
			select {
			case f := <-held:
				f.Close()
				t.Error("the parent held the last reference after a reported exit: the init should pay for the teardown")
			default:
			}
		})
		t.Run(name+"/kill", func(t *testing.T) {
			base := inotifyFDs(t)
			h, w := startWatched(t, r, "touch started; sleep 100")
			defer h.Close()
			waitFor(t, filepath.Join(w, "started"))
			pidfd, err := unix.PidfdOpen(h.Pid(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(pidfd)
			if err := h.Kill(); err != nil {
				t.Fatal(err)
			}
			fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, 10000); n != 1 {
				t.Fatalf("the init did not die: %v", err)
			}
			// The init is gone, and the instance lives on: its death did
			// not tear it down.
			var f *os.File
			select {
			case f = <-held:
			case <-time.After(10 * time.Second):
				t.Fatal("the parent did not keep the instance past the init's death")
			}
			if n := inotifyFDs(t); n != base+1 {
				t.Errorf("the parent holds %d inotify instances once the init died, want %d", n, base+1)
			}
			f.Close()
			if st, err := h.Wait(); err != nil || st.Code != 137 {
				t.Errorf("wait: %+v %v, want 137", st, err)
			}
			if n := inotifyFDs(t); n != base {
				t.Errorf("the parent holds %d inotify instances after the sandbox, want %d", n, base)
			}
		})
	}
}

// startWatched starts script in a sandbox whose writable root holds a deny
// path, so that its init watches a mount (and holds an inotify instance).
func startWatched(t *testing.T, r *Runtime, script string) (*handle, string) {
	t.Helper()
	w := hostTempDir(t)
	if err := os.WriteFile(filepath.Join(w, "token"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{
		Writable: []string{w},
		DenyRead: []string{filepath.Join(w, "token")},
	}}
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Dir: w})
	if err != nil {
		t.Fatal(err)
	}
	return proc.(*handle), w
}

// inotifyFDs counts this process's open inotify instances.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.Contains(l, "inotify") {
			n++
		}
	}
	return n
}

// waitFor waits until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for i := 0; ; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if i > 1500 {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInotifyFDWithoutWatch: an init with no mounts to watch (or the
// reduced tier's, which never starts the watch) has no inotify instance
// to hand over; the zero descriptor of an unopened dirWatch is the init's
// standard input, not one.
func TestInotifyFDWithoutWatch(t *testing.T) {
	var never mountWatch
	if fd := never.inotifyFD(); fd != -1 {
		t.Errorf("a watch never started hands over %d, want -1", fd)
	}
	var empty mountWatch
	if err := empty.start(); err != nil {
		t.Fatal(err)
	}
	if fd := empty.inotifyFD(); fd != -1 {
		t.Errorf("a watch with no mounts hands over %d, want -1", fd)
	}
}
