//go:build linux

package agentbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDescriptionLocked: descriptionLocked reads, from the kernel, the
// flock and OFD locks of one open file description: a lock through a
// duplicate counts (it is the same description), a lock through another
// open of the same file or a POSIX lock (the process's, not the
// description's) does not, since restore releases only the description's.
func TestDescriptionLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ofd := func(fd int) error {
		return unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &unix.Flock_t{Type: unix.F_WRLCK})
	}
	posix := func(fd int) error {
		return unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &unix.Flock_t{Type: unix.F_WRLCK})
	}
	flock := func(fd int) error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) }
	for _, tc := range []struct {
		name string
		lock func(desc, other int) error
		want bool
	}{
		{"none", func(int, int) error { return nil }, false},
		{"flock through the description", func(desc, _ int) error { return flock(desc) }, true},
		{"shared flock through the description", func(desc, _ int) error { return unix.Flock(desc, unix.LOCK_SH) }, true},
		{"OFD lock through the description", func(desc, _ int) error { return ofd(desc) }, true},
		{"flock through another description", func(_, other int) error { return flock(other) }, false},
		{"OFD lock through another description", func(_, other int) error { return ofd(other) }, false},
		{"POSIX lock of the process", func(desc, _ int) error { return posix(desc) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			other, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := tc.lock(int(f.Fd()), int(other.Fd())); err != nil {
				t.Fatal(err)
			}
			dup, err := unix.Dup(int(f.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(dup)
			if got := descriptionLocked(dup); got != tc.want {
				t.Errorf("descriptionLocked = %v, want %v", got, tc.want)
			}
		})
	}
	if !descriptionLocked(-1) {
		t.Error("descriptionLocked(-1) = false: a description it cannot read must count as locked")
	}
}
