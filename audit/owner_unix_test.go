//go:build unix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckLocation: a log is kept only where no other user can read it by
// owning its directory nor replace or remove it by writing there.
func TestCheckLocation(t *testing.T) {
	root := os.Geteuid() == 0
	mk := func(t *testing.T, mode os.FileMode) string {
		d := filepath.Join(t.TempDir(), "logs")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name     string
		needRoot bool
		setup    func(t *testing.T) string // returns the log's path
		ok       bool
	}{
		{"own private directory", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o700), "a.log") }, true},
		{"own directory others may read", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o755), "a.log") }, true},
		{"group-writable directory", false, func(t *testing.T) string { return filepath.Join(mk(t, 0o775), "a.log") }, false},
		{"sticky shared directory", false, func(t *testing.T) string { return filepath.Join(mk(t, os.ModeSticky|0o777), "a.log") }, false},
		{"own directory in a sticky one", false, func(t *testing.T) string {
			return filepath.Join(mk(t, os.ModeSticky|0o777), "mine", "a.log")
		}, true},
		{"own directory in a writable one", false, func(t *testing.T) string {
			return filepath.Join(mk(t, 0o777), "mine", "a.log")
		}, false},
		{"existing log others may write", false, func(t *testing.T) string {
			p := filepath.Join(mk(t, 0o700), "a.log")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o666); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"existing log of another user", true, func(t *testing.T) string {
			p := filepath.Join(mk(t, 0o700), "a.log")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"directory of another user", true, func(t *testing.T) string {
			d := mk(t, 0o755)
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(d, "a.log")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && !root {
				t.Skip("needs root to give a file to another user")
			}
			p := tc.setup(t)
			if dir := filepath.Dir(p); dir != "" {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			err := checkLocation(p)
			if tc.ok && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafeLocation) {
				t.Errorf("accepted (%v); want ErrUnsafeLocation", err)
			}
		})
	}
}
