//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam20HookLinkedIntoWorkTree: a protected directory (.git, kept
// read-only whole; .husky, .claude, .vscode, ...) is bound read-only, but
// the symbolic links inside it are followed by whoever reads them, and
// their targets in the writable root are not protected: the plan follows
// links only for a protected name itself (protectNames/protect), never for
// the entries of a protected directory, and the hard-link walk
// (linkedUnder) looks at regular files only. Keeping hooks in the work
// tree and linking them into .git/hooks (ln -s ../../scripts/pre-commit
// .git/hooks/pre-commit) is a common way to share them; so is a settings
// file linked into .claude. The command rewrites scripts/pre-commit and
// config/claude.json, the targets, and the developer's next `git commit`
// runs its code; Claude Code's project hooks are the command's too.
// Control: the hook's own name, written directly, is refused when it is a
// plain file (a second repository).
//
// Severity: high (code execution on the host at the next commit, default
// policy, a common repository layout). Affects both root and unprivileged
// callers.
//
// Fixed: bindReadOnly finds the symbolic links inside every directory it
// binds read-only (linkedUnder, the bounded walk) and holds each one's
// target in the writable roots read-only, with the links on the way
// (holdTarget, the path a protected name that is a link takes).
func TestRedteam20HookLinkedIntoWorkTree(t *testing.T) {
	t.Parallel()
	w := newRepo(t)
	plain := newRepo(t)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	writeFile(t, filepath.Join(w, "scripts", "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(w, "config", "claude.json"), "{}\n", 0o644)
	if err := os.Symlink("../../scripts/pre-commit", filepath.Join(w, ".git", "hooks", "pre-commit")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../config/claude.json", filepath.Join(w, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(plain, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	hooks := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch ` + marker + `"}]}]}}`
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		attack("plain_hook", "put:"+plain+"/.git/hooks/pre-commit|"+hookScript(marker), "EROFS"),
		attack("hook_through_link", "put:"+w+"/.git/hooks/pre-commit|"+hookScript(marker)),
		attack("claude_settings_through_link", "put:"+w+"/.claude/settings.json|"+strconv.Quote(hooks)),
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w, plain))
	if b, _ := os.ReadFile(filepath.Join(w, ".claude", "settings.json")); strings.Contains(string(b), marker) {
		t.Errorf("ESCAPE: %s/.claude/settings.json, in a protected directory, now names the command's hook; violations: %+v", w, res.Violations)
	}
	if hostGitRuns(w, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
		t.Errorf("ESCAPE: `git commit` in %s on the host ran the command's code through the linked hook", w)
	}
}
