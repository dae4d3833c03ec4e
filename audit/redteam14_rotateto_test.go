//go:build linux

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam14RotateIntoAnotherUsersDirectory: Open refuses a log in a
// directory another user owns (that user could read it through its
// directory, or delete it), but Rotate moves the log and its checkpoints
// to --to without the same check: into another user's directory, where
// that user deletes the rotated log and its checkpoints. The control
// rotates into the caller's own directory.
//
// Fixed: Rotate judges where the log goes with checkLocation first.
func TestRedteam14RotateIntoAnotherUsersDirectory(t *testing.T) {
	uid, gid := r14fOther(t)
	for _, tc := range []struct {
		name    string
		other   bool
		refused bool
	}{
		{"control: into the caller's own directory", false, false},
		{"into a directory another user owns", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			base, err := os.MkdirTemp("", "r14f-rot-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			dest := filepath.Join(base, "dest")
			if err := os.Mkdir(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(base, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.other {
				if err := os.Chown(dest, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			to := filepath.Join(dest, "agent.1.log")
			_, err = Rotate(env.path, to, RotateOptions{StateDir: env.state})
			if !tc.refused {
				if err != nil {
					t.Fatalf("control: Rotate: %v", err)
				}
				if r14fAs(t, "rm -f "+to) == nil {
					t.Errorf("control: agentbox-ci deleted the rotated log")
				}
				return
			}
			if errors.Is(err, ErrUnsafeLocation) {
				return
			}
			if err != nil {
				t.Fatalf("Rotate: %v, want ErrUnsafeLocation", err)
			}
			if r14fAs(t, "rm -f "+to+" "+to+CheckpointSuffix) == nil {
				if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
					t.Errorf("Rotate moved root's log into %s, owned by uid %d, which then deleted it and its checkpoints", dest, uid)
					return
				}
			}
			t.Errorf("Rotate into %s (owned by uid %d) was not refused", dest, uid)
		})
	}
}
