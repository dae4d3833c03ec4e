//go:build unix

package dirlist

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a directory was expected is not listed, and does not block
// the Cache: a name below it is looked up by the caller (ENOTDIR), not
// reported missing.
func TestCacheUnlisted(t *testing.T) {
	base := t.TempDir()
	fifo := filepath.Join(base, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		var c Cache
		missing := false
		for range listAfter + 2 {
			missing = missing || c.Missing(filepath.Join(fifo, "x"))
		}
		done <- missing
	}()
	select {
	case missing := <-done:
		if missing {
			t.Error("answered from a directory that could not be listed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}

// A file system not known to compare names byte for byte is not listed:
// /proc stands for them here (see exactNames).
func TestListsOnlyExactFileSystems(t *testing.T) {
	if runtime.GOOS != "linux" {
		if Lists(t.TempDir()) {
			t.Error("listed on a platform whose file systems may ignore case")
		}
		return
	}
	if Lists("/proc") {
		t.Error("/proc listed: only ext4, btrfs and tmpfs are")
	}
}
