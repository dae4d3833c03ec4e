//go:build unix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A rotation that cannot be done (here: a name on another file system)
// leaves everything as it was, and the log can still be rotated.
func TestRotateFailureLeavesNothingBehind(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	other, err := os.MkdirTemp("/dev/shm", "agentbox-rotate-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	if sameDevice(t, other, env.dir) {
		t.Skip("/dev/shm is on the same file system as the test's directory")
	}
	to := filepath.Join(other, "x.log")
	if _, err := Rotate(env.path, to, RotateOptions{StateDir: env.state}); err == nil || !strings.Contains(err.Error(), "move "+env.path) {
		t.Fatalf("Rotate across file systems: %v", err)
	}
	for _, p := range []string{to, to + CheckpointSuffix, stateCheckpointPath(filepath.Join(env.state, stateSubdir), to)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s was left behind (%v)", p, err)
		}
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 3 || len(rep.Rotated) != 0 {
		t.Fatalf("after the failed rotation: %+v", rep)
	}
	env.rotate(t, filepath.Join(env.dir, "x.log"))
}

func sameDevice(t *testing.T, a, b string) bool {
	t.Helper()
	var sa, sb syscall.Stat_t
	if err := errors.Join(syscall.Stat(a, &sa), syscall.Stat(b, &sb)); err != nil {
		t.Fatal(err)
	}
	return sa.Dev == sb.Dev
}
