//go:build linux

package agentbox

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSharedFilesRestoreOnce: sharedFiles.restore puts back the state of
// each file it holds and closes its duplicate, once. A second call did it
// all again on the descriptor numbers, by then another file's: it closed
// that file under its owner and gave it the first file's mode (without the
// fix, a run of this test that opened /dev/null there left the host's
// /dev/null 0600). Here the other file is a temporary one, mode 0644.
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
	other, err := os.CreateTemp(t.TempDir(), "other")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Chmod(0o644); err != nil {
		t.Fatal(err)
	}
	if int(other.Fd()) != dup {
		t.Skipf("the next descriptor is %d, not the duplicate's %d", other.Fd(), dup)
	}
	sf.restore()
	if _, err := unix.FcntlInt(other.Fd(), unix.F_GETFD, 0); err != nil {
		t.Errorf("a second restore closed descriptor %d, now another file's: %v", dup, err)
	}
	if fi, err := os.Stat(other.Name()); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("a second restore changed another file's mode: %v %v", fi.Mode(), err)
	}
}
