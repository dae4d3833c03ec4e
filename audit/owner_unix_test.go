//go:build unix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckLocation: a log is kept only where no other user can read it by
// owning its directory nor replace or remove it by writing there.
func TestCheckLocation(t *testing.T) {
	root := os.Geteuid() == 0
	mk := func(t *testing.T, mode os.FileMode) string {
		d := filepath.Join(t.TempDir(), "logs")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name     string
		needRoot bool
		setup    func(t *testing.T) string // returns the log's path
		ok       bool
	}{
		{"own private directory", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o700), "a.log") }, true},
		{"own directory others may read", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o755), "a.log") }, true},
		{"directory writable by another group", true, func(t *testing.T) string {
			d := mk(t, 0o775)
			if err := os.Chown(d, -1, 65534); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(d, "a.log")
		}, false},
		{"directory writable by others", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o757), "a.log") }, false},
		{"through a link to a shared directory", false, func(t *testing.T) string {
			link := filepath.Join(t.TempDir(), "logs")
			if err := os.Symlink(mk(t, os.ModeSticky|0o777), link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(link, "a.log")
		}, false},
		{"sticky shared directory", false, func(t *testing.T) string { return filepath.Join(mk(t, os.ModeSticky|0o777), "a.log") }, false},
		{"own directory in a sticky one", false, func(t *testing.T) string {
			return filepath.Join(mk(t, os.ModeSticky|0o777), "mine", "a.log")
		}, true},
		{"own directory in a writable one", false, func(t *testing.T) string {
			return filepath.Join(mk(t, 0o777), "mine", "a.log")
		}, false},
		{"existing log others may write", false, func(t *testing.T) string {
			p := filepath.Join(mk(t, 0o700), "a.log")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o666); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"existing log of another user", true, func(t *testing.T) string {
			p := filepath.Join(mk(t, 0o700), "a.log")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"directory of another user", true, func(t *testing.T) string {
			d := mk(t, 0o755)
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(d, "a.log")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && !root {
				t.Skip("needs root to give a file to another user")
			}
			p := tc.setup(t)
			if dir := filepath.Dir(p); dir != "" {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			err := checkLocation(p)
			if tc.ok && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafeLocation) {
				t.Errorf("accepted (%v); want ErrUnsafeLocation", err)
			}
		})
	}
}

// TestOnlyMember: a group is the caller's private one only if it lists no
// other member and is no other user's primary group.
func TestOnlyMember(t *testing.T) {
	d := t.TempDir()
	group, passwd := filepath.Join(d, "group"), filepath.Join(d, "passwd")
	if err := os.WriteFile(group, []byte("alice:x:1000:\nteam:x:2000:alice,bob\nsolo:x:3000:alice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(passwd, []byte("alice:x:1000:1000::/home/alice:/bin/sh\ncarol:x:1002:3000::/home/carol:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		gid  string
		want bool
	}{
		{"1000", true},  // alice's own group
		{"2000", false}, // bob is a member too
		{"3000", false}, // carol's primary group
	} {
		if got := onlyMember(group, passwd, tt.gid, "alice"); got != tt.want {
			t.Errorf("onlyMember(gid %s) = %v, want %v", tt.gid, got, tt.want)
		}
	}
	if onlyMember(filepath.Join(d, "missing"), passwd, "1000", "alice") {
		t.Error("a missing group file made a private group")
	}
}

// TestOpenRefusedLeavesNoDirectories: Open makes the log's missing
// directories, and takes them away again when it then refuses the place;
// a log opened in an accepted place keeps them (the control).
func TestOpenRefusedLeavesNoDirectories(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(shared, "a", "b", "x.log"), Options{StateDir: t.TempDir()})
	if !errors.Is(err, ErrUnsafeLocation) {
		t.Fatalf("Open in a directory others may write: %v; want ErrUnsafeLocation", err)
	}
	if _, err := os.Lstat(filepath.Join(shared, "a")); !os.IsNotExist(err) {
		t.Errorf("the refused Open left %s behind (%v)", filepath.Join(shared, "a"), err)
	}

	mine := filepath.Join(t.TempDir(), "a", "b", "x.log")
	l, err := Open(mine, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	defer l.Close()
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("control: %v", err)
	}
}

// TestCanonicalPathDotDotAfterLink: ".." after a link climbs from where the
// link leads, as the kernel does; such a name has no state key of its own.
func TestCanonicalPathDotDotAfterLink(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"mine", "other/sub"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(d, "other/sub"), filepath.Join(d, "mine/hop")); err != nil {
		t.Fatal(err)
	}
	path := d + "/mine/hop/../a.log"
	want := filepath.Join(d, "other", "a.log")
	if got, err := canonicalPath(path); err != nil || got != want {
		t.Errorf("canonicalPath(%s) = %q, %v; want %q", path, got, err, want)
	}
	if keys, err := stateKeys(path); err != nil || len(keys) != 1 || keys[0] != want {
		t.Errorf("stateKeys(%s) = %q, %v; want [%q]", path, keys, err, want)
	}
	if _, err := canonicalPath(d + "/mine/.."); err == nil {
		t.Errorf("canonicalPath of a directory's name: no error")
	}
}
