//go:build linux

package linux

import (
	"encoding/binary"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/sandbox"
)

func TestWatchDirs(t *testing.T) {
	tops := map[string]bool{"/w": true, "/tmp/shown": true, "/": true}
	top := func(d string) bool { return tops[d] }
	for _, c := range []struct {
		name   string
		mounts []string
		want   map[string][]string
	}{
		{"none", nil, map[string][]string{}},
		{"a name in the root", []string{"/w/token"}, map[string][]string{"/w": {"token"}}},
		{"through pins up to the root", []string{"/w/.git/config", "/w/.git", "/w/token"},
			map[string][]string{"/w/.git": {"config"}, "/w": {".git", "token"}}},
		{"a shown directory's plain directories", []string{"/tmp/shown/a/b/.env"},
			map[string][]string{"/tmp/shown/a/b": {".env"}, "/tmp/shown/a": {"b"}, "/tmp/shown": {"a"}}},
		{"no top: up to /", []string{"/x/y"}, map[string][]string{"/x": {"y"}, "/": {"x"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ms []watchedMount
			for _, p := range c.mounts {
				ms = append(ms, watchedMount{path: p})
			}
			got := map[string][]string{}
			for d, names := range watchDirs(ms, top) {
				got[d] = slices.Sorted(maps.Keys(names))
			}
			if !maps.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("watchDirs = %v, want %v", got, c.want)
			}
		})
	}
}

// inotifyEvent encodes an event as the kernel does, its name padded with
// NULs.
func inotifyEvent(wd int32, mask uint32, name string) []byte {
	n := 0
	if name != "" {
		n = (len(name) + 1 + 15) &^ 15
	}
	b := make([]byte, unix.SizeofInotifyEvent+n)
	binary.NativeEndian.PutUint32(b[0:], uint32(wd))
	binary.NativeEndian.PutUint32(b[4:], mask)
	binary.NativeEndian.PutUint32(b[12:], uint32(n))
	copy(b[unix.SizeofInotifyEvent:], name)
	return b
}

func TestRelevant(t *testing.T) {
	names := map[int32]map[string]bool{1: {"token": true, ".git": true}, 2: {"config": true}}
	for _, c := range []struct {
		name   string
		events [][]byte
		want   bool
	}{
		{"nothing", nil, false},
		{"another name moved", [][]byte{inotifyEvent(1, unix.IN_MOVED_FROM, "build.o")}, false},
		{"a watched name moved", [][]byte{inotifyEvent(1, unix.IN_MOVED_FROM, "token")}, true},
		{"a watched name, in another directory", [][]byte{inotifyEvent(2, unix.IN_MOVED_FROM, "token")}, false},
		{"a prefix of a watched name", [][]byte{inotifyEvent(1, unix.IN_MOVED_FROM, "tok")}, false},
		{"a watched name after others", [][]byte{
			inotifyEvent(1, unix.IN_MOVED_FROM, "a"), inotifyEvent(1, unix.IN_MOVED_FROM, strings.Repeat("b", 40)),
			inotifyEvent(2, unix.IN_MOVED_FROM, "config")}, true},
		{"the queue overflowed", [][]byte{inotifyEvent(-1, unix.IN_Q_OVERFLOW, "")}, true},
		{"a watch removed", [][]byte{inotifyEvent(1, unix.IN_IGNORED, "")}, true},
		{"the directory itself", [][]byte{inotifyEvent(2, unix.IN_MOVE_SELF, "")}, true},
		{"a cut event", [][]byte{inotifyEvent(1, unix.IN_MOVED_FROM, "build.o")[:20]}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := relevant(slices.Concat(c.events...), names); got != c.want {
				t.Errorf("relevant = %v, want %v", got, c.want)
			}
		})
	}
}

// TestMountWatchStopsOnHostMoveAway: a host program that moves a deny path
// or protected name in a writable root away (an editor's backup save), or
// a directory on the way to it, or exchanges it with another name, changes
// no mount; the init sees it in the directories and kills the sandbox.
// Warm and cold inits alike. The watches land on the host's own
// directories through the writable root's bind and the pins.
func TestMountWatchStopsOnHostMoveAway(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	for _, cold := range []bool{false, true} {
		r := &Runtime{ColdStart: cold}
		defer r.Close()
		for _, c := range []struct {
			name    string
			host    func(w string) error
			stopped string
		}{
			{"move the deny path away, write anew", func(w string) error { return moveAway(w, "token", false) }, "token"},
			{"move the protected file away, write anew", func(w string) error { return moveAway(w, ".git/config", false) }, ".git/config"},
			{"move the denied directory away, make anew", func(w string) error { return moveAway(w, "secrets", true) }, "secrets"},
			{"move a directory on the way away", func(w string) error {
				if err := moveAway(w, ".git", true); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(w, ".git", "config"), []byte("new"), 0o644)
			}, ".git/config"},
			{"exchange the deny path with another file", func(w string) error {
				return unix.Renameat2(unix.AT_FDCWD, filepath.Join(w, "token"), unix.AT_FDCWD, filepath.Join(w, "ordinary"), unix.RENAME_EXCHANGE)
			}, "token"},
			{"move other names", func(w string) error {
				if err := os.Rename(filepath.Join(w, "ordinary"), filepath.Join(w, "ordinary~")); err != nil {
					return err
				}
				return os.Rename(filepath.Join(w, "secrets", "key"), filepath.Join(w, "secrets", "key~"))
			}, ""},
		} {
			name := c.name
			if cold {
				name += " (cold)"
			}
			t.Run(name, func(t *testing.T) {
				st, took := runWhileHostActs(t, r, c.host)
				checkStopped(t, st, c.stopped)
				if c.stopped != "" {
					t.Logf("from the host's move to the program's death: %v", took)
				}
			})
		}
	}
}

// TestMountWatchStopsOnHostMoveAwayInShown: a deny path deep in a host
// directory shown in /tmp is masked; the host moving a plain directory on
// the way there away, and making it anew, stops the sandbox (the watch
// goes up to the shown directory's bind).
func TestMountWatchStopsOnHostMoveAwayInShown(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	marks := hostTempDir(t)
	shown, err := os.MkdirTemp("/tmp", "agentbox-shown-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shown)
	if err := os.Chmod(shown, 0o755); err != nil { // the sandbox's root is not the host's
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(shown, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shown, "a", "b", ".env"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{
		Writable: []string{marks},
		Visible:  []string{shown},
		DenyRead: []string{filepath.Join(shown, "a", "b", ".env")},
	}}
	st, _ := runSpecWhileHostActs(t, r, spec, marks, func(string) error {
		a := filepath.Join(shown, "a")
		if err := os.Rename(a, a+".old"); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(a, "b"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(a, "b", ".env"), []byte("new"), 0o644)
	})
	checkStopped(t, st, "a/b/.env")
}

// moveAway moves w/name to w/name~ and makes a new one at the name, as an
// editor's backup save does (or `mv d d.old; mkdir d`).
func moveAway(w, name string, dir bool) error {
	p := filepath.Join(w, name)
	if err := os.Rename(p, p+"~"); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(p, 0o755)
	}
	return os.WriteFile(p, []byte("new"), 0o644)
}

// checkStopped checks the sandbox ended by itself when stopped is "", else
// was stopped by the watch for the path ending in stopped.
func checkStopped(t *testing.T, st sandbox.ExitStatus, stopped string) {
	t.Helper()
	switch {
	case stopped == "" && (st.Stopped != "" || st.Code != 0):
		t.Errorf("the sandbox was stopped: %+v", st)
	case stopped != "" && (st.Code != 137 || !strings.Contains(st.Stopped, "/"+stopped+" was detached")):
		t.Errorf("status %+v, want 137 and a reason naming %s", st, stopped)
	}
}

// TestTimedWatchLayer: a watch that could not watch every directory says
// so in the layers, and the run counts as degraded.
func TestTimedWatchLayer(t *testing.T) {
	for _, tc := range []struct {
		failed string
		want   bool
	}{{"", false}, {"inotify: too many open files", true}} {
		w := mountWatch{dirs: dirWatch{failed: tc.failed}}
		l := w.timedLayer()
		if got := l != "" && len(degradedLayers([]string{l})) == 1 && strings.Contains(l, tc.failed); got != tc.want {
			t.Errorf("failed %q: layer %q, degraded %v; want reported %v", tc.failed, l, degradedLayers([]string{l}), tc.want)
		}
	}
}
