//go:build linux

package ownerperm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func openPath(t *testing.T, p string) int {
	t.Helper()
	fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

func TestWith(t *testing.T) {
	d := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(d, 0o500); err != nil {
		t.Fatal(err)
	}
	var during os.FileMode
	if err := With(openPath(t, d), unix.S_IWUSR, func() error { during = mode(t, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if during != 0o700 || mode(t, d) != 0o500 {
		t.Errorf("mode during %v, after %v; want 0700 then 0500", during, mode(t, d))
	}
	// Bits there already: nothing changes, fn runs.
	ran := false
	if err := With(openPath(t, d), unix.S_IRUSR, func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("With with the bits there: ran %v, %v", ran, err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := With(openPath(t, d), unix.S_IWUSR, func() error { return nil }); !errors.Is(err, ErrNotOwner) {
			t.Errorf("another user's directory: %v, want ErrNotOwner", err)
		}
	}
}

// TestGive: the bits stay; another user's directory is refused.
func TestGive(t *testing.T) {
	d := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(d, 0); err != nil {
		t.Fatal(err)
	}
	if err := Give(openPath(t, d), 0o700); err != nil || mode(t, d) != 0o700 {
		t.Errorf("Give: mode %v, %v; want 0700", mode(t, d), err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
		if err := Give(openPath(t, d), 0o700); !errors.Is(err, ErrNotOwner) || mode(t, d) != 0o500 {
			t.Errorf("another user's directory: mode %v, %v; want 0500 and ErrNotOwner", mode(t, d), err)
		}
	}
}

func TestSearchable(t *testing.T) {
	base := t.TempDir()
	a := filepath.Join(base, "a")
	b := filepath.Join(a, "b")
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{b, a} {
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	undo, err := Searchable(b)
	if err != nil {
		t.Fatal(err)
	}
	if mode(t, a) != 0o700 || mode(t, b) != 0o700 {
		t.Errorf("modes during: %v %v; want 0700", mode(t, a), mode(t, b))
	}
	undo()
	if err := os.Chmod(a, 0o700); err != nil { // to look at b
		t.Fatal(err)
	}
	if m := mode(t, b); m != 0o600 {
		t.Errorf("b after undo: %v, want 0600", m)
	}
	// A link on the way is not followed.
	link := filepath.Join(base, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Searchable(filepath.Join(link, "b")); err == nil {
		t.Error("Searchable followed a link")
	}
}
