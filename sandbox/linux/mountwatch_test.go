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

func TestFirstMissing(t *testing.T) {
	const table = "21 1 0:5 / / ro - tmpfs tmpfs rw\n" +
		"300 21 8:1 /w /w rw - ext4 /dev/sda1 rw\n" +
		"301 300 0:40 / /w/token ro - tmpfs tmpfs ro\n" +
		"3020 300 8:1 /w/.git /w/.git rw - ext4 /dev/sda1 rw" // no final newline
	for _, c := range []struct {
		name   string
		table  string
		mounts []watchedMount
		want   string
	}{
		{"none watched", table, nil, ""},
		{"all there", table, []watchedMount{{301, "/w/token", false}, {3020, "/w/.git", true}}, ""},
		{"one gone", table, []watchedMount{{301, "/w/token", false}, {302, "/w/.git/config", false}, {3020, "/w/.git", true}}, "/w/.git/config"},
		{"an ID is a whole field, not a prefix", table, []watchedMount{{30, "/w/x", false}}, "/w/x"},
		{"an ID elsewhere in a line does not count", table, []watchedMount{{1, "/w/y", false}}, "/w/y"},
		{"empty table", "", []watchedMount{{21, "/", true}}, "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := firstMissing([]byte(c.table), c.mounts); got != c.want {
				t.Errorf("firstMissing = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMarkWatched: the mounts that alone protect a path are watched, those
// that Landlock or a read-only host tree back up are not.
func TestMarkWatched(t *testing.T) {
	dir := hostTempDir(t)
	w := filepath.Join(dir, "work")
	for _, d := range []string{filepath.Join(w, ".git", "hooks"), filepath.Join(dir, "secret")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shown, err := os.MkdirTemp("/tmp", "agentbox-shown-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shown)
	for _, f := range []string{filepath.Join(w, "token"), filepath.Join(w, ".git", "config"), filepath.Join(dir, "outside"), filepath.Join(shown, ".env")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{
		Writable: []string{w},
		DenyRead: []string{filepath.Join(w, "token"), filepath.Join(dir, "outside"), filepath.Join(dir, "secret"),
			filepath.Join(shown, ".env"), "/tmp/agentbox-not-shown/.env"},
		Visible:   []string{shown},
		DenyWrite: []string{filepath.Join(w, ".git", "config")},
		Protected: []string{".git/hooks"},
	}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	for _, c := range []struct {
		dst   string
		kind  opKind
		watch bool
	}{
		{w, opBindRW, false},
		{filepath.Join(w, "token"), opMaskFile, true},
		{filepath.Join(w, ".git", "config"), opBindRO, true},
		{filepath.Join(w, ".git", "hooks"), opBindRO, true},
		{filepath.Join(w, ".git"), opPin, true},
		{filepath.Join(dir, "outside"), opMaskFile, false}, // Landlock denies it too
		{filepath.Join(dir, "secret"), opMaskDir, false},
		{filepath.Join(shown, ".env"), opMaskFile, true}, // shown from the host: the mask alone
		{"/run", opTmpfs, false},
	} {
		op, _, ok := opAt(pl, c.dst)
		if !ok || op.Kind != c.kind {
			t.Errorf("%s: %+v, want a %s step", c.dst, op, c.kind)
			continue
		}
		if op.Watch != c.watch {
			t.Errorf("%s (%s): Watch = %v, want %v", c.dst, op.Kind, op.Watch, c.watch)
		}
	}
	// In the sandbox's own /tmp, where nothing of the host's shows: no
	// mount at all.
	if op, _, ok := opAt(pl, "/tmp/agentbox-not-shown/.env"); ok {
		t.Errorf("a deny path in the sandbox's own /tmp: %+v, want no step", op)
	}
}

// TestMountWatchStopsOnHostRename: a host program that renames a file
// over a deny path inside a writable root (or over a protected file there)
// detaches the sandbox's mount on it; the init then kills the sandbox at
// once and says why. Writing the files in place, making and renaming other
// files there, and an ordinary end stop nothing. Warm and cold inits
// alike. The time from the host's rename to the program's death is logged.
func TestMountWatchStopsOnHostRename(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	for _, cold := range []bool{false, true} {
		r := &Runtime{ColdStart: cold}
		defer r.Close()
		for _, c := range []struct {
			name    string
			host    func(w string) error
			stopped string // the path the reason names; "" for none
		}{
			{"rename over the deny path", func(w string) error { return replace(w, "token") }, "token"},
			{"rename over the protected file", func(w string) error { return replace(w, ".git/config") }, ".git/config"},
			{"remove the deny path", func(w string) error { return os.Remove(filepath.Join(w, "token")) }, "token"},
			{"write in place, rename others", func(w string) error {
				if err := os.WriteFile(filepath.Join(w, "token"), []byte("new"), 0o600); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(w, ".git", "config"), []byte("new"), 0o644); err != nil {
					return err
				}
				return replace(w, "ordinary")
			}, ""},
		} {
			name := c.name
			if cold {
				name += " (cold)"
			}
			t.Run(name, func(t *testing.T) {
				st, took := runWhileHostActs(t, r, c.host)
				switch {
				case c.stopped == "" && (st.Stopped != "" || st.Code != 0):
					t.Errorf("the sandbox was stopped: %+v", st)
				case c.stopped != "" && (st.Code != 137 || !strings.Contains(st.Stopped, "/"+c.stopped+" was detached")):
					t.Errorf("status %+v, want 137 and a reason naming %s", st, c.stopped)
				case c.stopped != "":
					t.Logf("from the host's change to the program's death: %v", took)
				}
			})
		}
	}
}

// replace writes a new file beside w/name and renames it over it, as
// git, editors and npm do.
func replace(w, name string) error {
	p := filepath.Join(w, name)
	if err := os.WriteFile(p+".new", []byte("new"), 0o644); err != nil {
		return err
	}
	return os.Rename(p+".new", p)
}

// runWhileHostActs starts, in r, a sandbox that writes the writable root
// w, with w/token and the directory w/secrets denied and w/.git/config kept
// read-only, runs host once its program runs, and returns its status and
// the time from host's return to the program's end (the program itself
// sleeps, or ends 200 ms after host when nothing stops it).
func runWhileHostActs(t *testing.T, r *Runtime, host func(w string) error) (sandbox.ExitStatus, time.Duration) {
	t.Helper()
	w := hostTempDir(t)
	if err := os.MkdirAll(filepath.Join(w, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"token", ".git/config", "ordinary", "secrets/key"} {
		if err := os.WriteFile(filepath.Join(w, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{
		Writable:  []string{w},
		DenyRead:  []string{filepath.Join(w, "token"), filepath.Join(w, "secrets")},
		DenyWrite: []string{filepath.Join(w, ".git", "config")},
	}}
	return runSpecWhileHostActs(t, r, spec, w, host)
}

// runSpecWhileHostActs runs spec's sandbox as runWhileHostActs does, with
// w a directory the program may write (its marks) and host given w.
func runSpecWhileHostActs(t *testing.T, r *Runtime, spec *sandbox.Spec, w string, host func(w string) error) (sandbox.ExitStatus, time.Duration) {
	t.Helper()
	script := "touch " + w + "/started; i=0; while [ ! -e " + w + "/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.2"
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(w, "started")); err == nil {
			break
		}
		if i > 1500 {
			t.Fatal("the program did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The program's host pid, to see its end (the init reports a little
	// later).
	pidfd, err := unix.PidfdOpen(onlyChild(t, proc.(*handle).Pid()), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	if err := host(w); err != nil {
		t.Fatal(err)
	}
	acted := time.Now()
	if err := os.WriteFile(filepath.Join(w, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			break
		}
	}
	took := time.Since(acted)
	st, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return st, took
}

func TestMountWatchLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   uint64
		err  error
		want bool
	}{
		{"same mount", 7, nil, false},
		{"another mount", 8, nil, true},
		{"moved away", 0, unix.ENOENT, true},
		{"a directory on the way made a file", 0, unix.ENOTDIR, true},
		{"a link loop on the way", 0, unix.ELOOP, true},
		{"a directory on the way closed", 0, unix.EACCES, true},
		{"interrupted", 0, unix.EINTR, false},
		{"out of memory", 0, unix.ENOMEM, false},
	} {
		if got := lost(tc.id, 7, tc.err); got != tc.want {
			t.Errorf("%s: lost = %v, want %v", tc.name, got, tc.want)
		}
	}
}
