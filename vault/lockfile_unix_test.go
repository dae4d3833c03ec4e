//go:build unix

package vault

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockNeverFollowed: a vault may sit in a directory someone else can
// write (an agent's writable root). Whatever is planted at its lock's name
// (a link to a file to create or open as the vault's owner, a FIFO, a second
// name of another file) is refused with what to do, nothing is created
// through it, and the vault is unchanged; a plain lock file left by an
// earlier writer is used as before (the control).
func TestLockNeverFollowed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, lock, outside string)
		want  string // in the error; "" for the control
	}{
		{"plain file left behind", func(t *testing.T, lock, _ string) {
			if err := os.WriteFile(lock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"link to a file to create", func(t *testing.T, lock, outside string) {
			if err := os.Symlink(filepath.Join(outside, "created"), lock); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"link to an existing file", func(t *testing.T, lock, outside string) {
			if err := os.WriteFile(filepath.Join(outside, "created"), []byte("theirs"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "created"), lock); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"fifo", func(t *testing.T, lock, _ string) {
			if err := syscall.Mkfifo(lock, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a plain file"},
		{"second name of another file", func(t *testing.T, lock, outside string) {
			other := filepath.Join(outside, "other")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(other, lock); err != nil {
				t.Fatal(err)
			}
		}, "not a plain file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, path := newVault(t)
			mustPut(t, v, "KEEP", "kept")
			outside := t.TempDir()
			lock := LockPath(path)
			if err := os.Remove(lock); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, lock, outside)
			done := make(chan error, 1)
			go func() { done <- v.Put("NEW", []byte("new")) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Put hung on the planted lock")
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Put with a plain lock file: %v", err)
				}
				checkAll(t, path, map[string]string{"KEEP": "kept", "NEW": "new"})
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "remove it") {
				t.Errorf("Put through a planted lock: %v; want an error saying %q and what to do", err, tc.want)
			}
			if b, err := os.ReadFile(filepath.Join(outside, "created")); err == nil && string(b) != "theirs" {
				t.Errorf("the planted link's target was created or written: %q", b)
			}
			checkAll(t, path, map[string]string{"KEEP": "kept"})
		})
	}
}

// TestVaultFIFORefused: a FIFO at the vault's path is refused at once, not
// waited on (an open for reading blocks until a writer comes).
func TestVaultFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Open(path, testPass, testOpts()...)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open of a FIFO: %v; want it refused as not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open hung on a FIFO at the vault's path")
	}
}
