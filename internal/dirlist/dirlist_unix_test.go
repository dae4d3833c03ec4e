//go:build unix

package dirlist

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A directory that cannot be read, or a FIFO where one was expected, is
// never answered from: the caller looks each name up (and a FIFO does not
// block the Cache).
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
			missing = missing || c.Missing(filepath.Join(base, "gone", "x"))
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
