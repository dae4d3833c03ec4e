//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// Red team 12: the classifier's recursive-delete-root rule follows `cd ~`
// into `rm -rf .` and `rm -rf *`, but not into /proc/self/cwd, which names
// the same directory. `cd ~ && rm -rf /proc/self/cwd/` is "sandboxed" and
// runs: where the home is a writable root (the only case in which the
// sandbox itself lets it be deleted) every file in it is gone. The
// control: `cd ~ && rm -rf .` is refused as forbidden.
//
// Fixed: the classifier resolves a /proc/(self|thread-self|$$|$BASHPID)/cwd
// prefix to the directory cd tracking gives `.` (classify/paths.go
// resolveAlias); with that unknown, or for another pid's cwd, /dev/fd/N/ or
// /proc/*/fd/N/, the prefix is a run-time one that dynamic-delete-target
// escalates, find -delete's starting points included.
func TestRedteam12ClassifierCwdAliasDeletesHome(t *testing.T) {
	for _, tc := range []struct {
		name, command string
	}{
		{"control dot", "cd ~ && rm -rf ."},
		{"control star", "cd ~ && rm -rf *"},
		{"proc self cwd", "cd ~ && rm -rf /proc/self/cwd/"},
		{"proc self cwd glob", "cd ~ && rm -rf /proc/self/cwd/*"},
		{"proc pid cwd", "cd ~ && rm -rf /proc/$$/cwd/"},
		{"find proc self cwd", "cd ~ && find /proc/self/cwd/ -mindepth 1 -delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			if err := os.MkdirAll(filepath.Join(home, "project"), 0o755); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(home, "project", "work.txt")
			if err := os.WriteFile(victim, []byte("a day's work\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := agentbox.CIConfig()
			cfg.Filesystem.WritableRoots = []string{home}
			m := newManager(t, cfg)
			res, err := m.Check(context.Background(), tc.command)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Exec(context.Background(), tc.command,
				agentbox.WithEnv("HOME="+home), agentbox.WithWorkingDir(home))
			if !errors.Is(err, agentbox.ErrForbiddenCommand) {
				t.Errorf("classified %s (rule %q), Exec error %v: want it forbidden like `rm -rf ~`", res.Decision, res.Rule, err)
			}
			if _, serr := os.Stat(victim); serr != nil {
				t.Errorf("the home's files were deleted: %v", serr)
			}
		})
	}
}
