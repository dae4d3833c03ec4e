//go:build unix

package dirlist

import (
	"path/filepath"
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
