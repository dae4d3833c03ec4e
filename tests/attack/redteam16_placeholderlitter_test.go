//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam16PlaceholderLitterAfterChmodRoot: the command takes every
// permission off its writable root (its own directory: chmod needs no
// capability) as its last act. agentbox's clean-up then cannot look at its
// placeholders there (lstat: EACCES; withOwnerWrite adds only the write
// bit, not search), drops them from its journal as "no longer agentbox's",
// and leaves them on the host for good: empty directories named .vscode,
// .mcp.json, .envrc, … and the .git hold file naming no repository (git
// there answers "not a git repository: /nonexistent/…" from then on). The
// user's chmod back and a later run do not remove them. Control: the
// command's own file is written; without the chmod, nothing is left.
//
// Fixed: the clean-up gives the caller's directories on the way their
// owner's search permission back for the moment (searchable), and keeps in
// the journal, for a later run, what it still cannot look at.
func TestRedteam16PlaceholderLitterAfterChmodRoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		chmod bool
	}{{"control_no_chmod", false}, {"attack_chmod_000", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newDir(t, 0o755)
			giveToSandboxUser(t, w)
			script := "echo x > " + w + "/main.go"
			if tc.chmod {
				script += " && chmod 000 " + w
			}
			res := runShell(t, script, agentbox.WithWritableRoots(w))
			if err := os.Chmod(w, 0o755); err != nil { // the user puts it back
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("control: the command failed: %+v", res)
			}
			if _, err := os.Stat(filepath.Join(w, "main.go")); err != nil {
				t.Fatalf("control: the command's own file is missing: %v", err)
			}
			runShell(t, "true", agentbox.WithWritableRoots(w)) // a later run sweeps what it knows of
			ents, err := os.ReadDir(w)
			if err != nil {
				t.Fatal(err)
			}
			var litter []string
			for _, e := range ents {
				if e.Name() != "main.go" {
					litter = append(litter, e.Name())
				}
			}
			if len(litter) > 0 {
				t.Errorf("HOST LITTER: agentbox's placeholders stay in %s after the run and a later one: %v", w, litter)
			}
		})
	}
}
