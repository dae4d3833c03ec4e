//go:build linux

package agentbox

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSharedFilesRestoreOnce: sharedFiles.restore closes each duplicate it
// holds once. A second call closed them again: by then the descriptor
// number may be another file's (here the next one opened), which it closed
// under its owner.
func TestSharedFilesRestoreOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var sf sharedFiles
	sf.add(w)
	if len(sf) != 1 {
		t.Fatalf("sharedFiles holds %d files, want the pipe's", len(sf))
	}
	dup := sf[0].fd
	sf.restore()
	// The lowest free number: the duplicate's, just closed.
	other, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if int(other.Fd()) != dup {
		t.Skipf("the next descriptor is %d, not the duplicate's %d", other.Fd(), dup)
	}
	sf.restore()
	if _, err := unix.FcntlInt(other.Fd(), unix.F_GETFD, 0); err != nil {
		t.Errorf("a second restore closed descriptor %d, now another file's: %v", dup, err)
	}
}
