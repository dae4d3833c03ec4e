//go:build linux

package agentbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestHostReadPseudoFiles: the host-side reads refuse files of pseudo file
// systems, which hold no one's configuration and whose reads may act or
// block (/proc/kmsg consumes the kernel's log; trace_pipe waits for
// events), also through a link a command made, and devices, unopened;
// a regular file beside them is read.
func TestHostReadPseudoFiles(t *testing.T) {
	dir := t.TempDir()
	for name, target := range map[string]string{"proclink": "/proc/self/status", "devlink": "/dev/null"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("[user]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want error // nil: read
	}{
		{filepath.Join(dir, "plain"), nil},
		{"/proc/self/status", errPseudoFile},
		{filepath.Join(dir, "proclink"), errPseudoFile},
		{"/sys/kernel/mm/transparent_hugepage/enabled", errPseudoFile},
		{"/dev/null", errNotRegular},
		{filepath.Join(dir, "devlink"), errNotRegular},
	} {
		if _, err := os.Stat(tt.path); err != nil {
			continue // not on this machine
		}
		b, err := readFollow(tt.path)
		switch {
		case tt.want == nil && (err != nil || len(b) == 0):
			t.Errorf("%s: %d bytes, %v; want it read", tt.path, len(b), err)
		case tt.want != nil && !errors.Is(err, tt.want):
			t.Errorf("%s: %d bytes, %v; want %v", tt.path, len(b), err, tt.want)
		}
	}
}
