//go:build linux

package agentbox_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRelativeCmdDir: a relative cmd.Dir given to Wrap or Start is taken
// from the caller's working directory, as os/exec takes it, and checked as
// WithWorkingDir is: the command runs there (the control), and one inside
// a denied directory is refused before anything runs.
func TestRelativeCmdDir(t *testing.T) {
	base := t.TempDir()
	work, secret := filepath.Join(base, "work"), filepath.Join(base, "secret")
	for _, d := range []string{work, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(base)
	cfg := agentbox.CIConfig()
	cfg.Filesystem.DenyRead = append(cfg.Filesystem.DenyRead, secret)
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, api := range []string{"Wrap", "Start"} {
		t.Run(api, func(t *testing.T) {
			var out strings.Builder
			cmd := exec.Command("/bin/pwd")
			cmd.Dir, cmd.Stdout = "work", &out
			if setup, run := runVia(m, api, cmd, agentbox.WithWritableRoots(work)); setup != nil || run != nil {
				t.Fatalf("control: %v %v", setup, run)
			}
			if got := strings.TrimSpace(out.String()); got != work {
				t.Errorf("cmd.Dir \"work\" ran in %q, want %s (the caller's work)", got, work)
			}
			cmd = exec.Command("/bin/ls")
			cmd.Dir = "secret"
			setup, _ := runVia(m, api, cmd)
			if !errors.Is(setup, agentbox.ErrConfigInvalid) || !strings.Contains(setup.Error(), "denied") {
				t.Errorf("cmd.Dir \"secret\", a denied directory: %v; want ErrConfigInvalid saying it is denied", setup)
			}
		})
	}
}
