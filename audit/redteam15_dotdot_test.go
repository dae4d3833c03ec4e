//go:build linux

package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Red team 15: a log path with ".." after a symbolic link. checkLocation
// (and canonicalPath, which files the state directory's checkpoints) clean
// the path lexically first (filepath.Abs), so "mine/hop/../a.log" is judged
// as "mine/a.log"; the kernel, which opens the raw path, resolves "hop"
// first and ".." from where it points: the log is created in the link
// target's parent, a directory that was never judged. Here that is another
// user's directory: the log lands where that user may read its name,
// delete or replace it.
//
// Fixed: the log's path is resolved once as the kernel resolves it
// (resolveLog, on paths.Resolve), and that one path is judged and used to
// open the log, its lock and checkpoints and to file its state key.
func TestRedteam15OpenDotDotAfterLink(t *testing.T) {
	uid, gid := r14fOther(t)
	base, err := os.MkdirTemp("", "r15b-dotdot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(base, "mine")
	theirs := filepath.Join(base, "theirs")
	for _, d := range []string{mine, theirs, filepath.Join(theirs, "sub")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{theirs, filepath.Join(theirs, "sub")} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	// The caller's own link, in its own directory, to a place it reads
	// (another user's shared directory).
	if err := os.Symlink(filepath.Join(theirs, "sub"), filepath.Join(mine, "hop")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")

	cases := []struct {
		name, path string
		attack     bool
	}{
		{"control: the judged path itself", filepath.Join(mine, "b.log"), false},
		{"dot-dot after a link", mine + "/hop/../a.log", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Open(tc.path, Options{StateDir: state, Logger: testLogger(t)})
			if err != nil {
				if !tc.attack {
					t.Fatalf("control: Open(%s): %v", tc.path, err)
				}
				if !errors.Is(err, ErrUnsafeLocation) {
					t.Logf("Open refused with %v", err)
				}
				return
			}
			if err := l.Append(context.Background(), sampleEvent(1)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if !tc.attack {
				if _, err := os.Stat(filepath.Join(mine, "b.log")); err != nil {
					t.Fatalf("control: %v", err)
				}
				return
			}
			if _, err := os.Stat(filepath.Join(theirs, "a.log")); err == nil {
				gone := r14fAs(t, "rm -f "+filepath.Join(theirs, "a.log")) == nil
				t.Errorf("attack succeeded: Open(%s) passed the location check on %s but wrote the log into %s, agentbox-ci's directory (agentbox-ci deleted it: %v)",
					tc.path, mine, theirs, gone)
			}
		})
	}
}
