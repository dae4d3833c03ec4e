//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam14PrivateGroupExistingLog: a regression hunt for ordinary
// users. Under the user-private-group scheme (umask 002) checkLocation
// counts the caller's own group as the caller for the log's directories
// (ca37679), but not for an existing log: a log the user made beforehand
// with umask 002 (a setup script's `mkdir -p logs && touch
// logs/agent.log`, a copy, an editor) is mode 0664 in a 0775 directory, and
// `agentbox run` refuses it (exit 125, "is writable by group or others")
// although no one but the user is in that group, while the same directory
// alone is accepted. The file's group write should be judged as the
// directory's is: accepted when the group is the caller's private one,
// refused when it is any other (the control: another group's write, as
// root).
//
// Fixed: an existing log is judged as its directory is (othersMayWrite):
// the caller's private group counts as the caller.
func TestRedteam14PrivateGroupExistingLog(t *testing.T) {
	probe := t.TempDir()
	fi, err := os.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	if !privateGroup(fi) {
		t.Skip("the caller's group is not a private one here")
	}
	dir := func(t *testing.T, mode os.FileMode) string {
		d := filepath.Join(t.TempDir(), "logs")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		return d
	}
	file := func(t *testing.T, d string, mode os.FileMode) string {
		p := filepath.Join(d, "agent.log")
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		needRoot bool
		path     func(t *testing.T) string
		ok       bool
	}{
		{"control: umask 002 directory, no log yet", false, func(t *testing.T) string {
			return filepath.Join(dir(t, 0o775), "agent.log")
		}, true},
		{"control: umask 002 directory, log made by agentbox (0600)", false, func(t *testing.T) string {
			return file(t, dir(t, 0o775), 0o600)
		}, true},
		{"control: log others may write", false, func(t *testing.T) string {
			return file(t, dir(t, 0o775), 0o666)
		}, false},
		{"control: log another group may write", true, func(t *testing.T) string {
			p := file(t, dir(t, 0o700), 0o664)
			if err := os.Chown(p, -1, 65534); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"umask 002 log (0664) in a umask 002 directory", false, func(t *testing.T) string {
			return file(t, dir(t, 0o775), 0o664)
		}, true},
		{"umask 002 log (0664) in a private directory", false, func(t *testing.T) string {
			return file(t, dir(t, 0o700), 0o664)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another group")
			}
			err := checkLocation(tc.path(t))
			if tc.ok && err != nil {
				t.Errorf("REGRESSION: refused under the user-private-group scheme: %v", err)
			}
			if !tc.ok && err == nil {
				t.Errorf("accepted; want ErrUnsafeLocation")
			}
		})
	}
}
