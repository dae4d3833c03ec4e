//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam58PlantedRepoRelativeGlobalHooksPath: the user's global git
// configuration sets a relative core.hooksPath (git config --global
// core.hooksPath .githooks: every repository runs the hooks committed in
// its own work tree), which agentbox knows of: for the repositories it
// finds in and around a writable root it keeps <work tree>/.githooks
// read-only (manager.go: protectRepositories, githooks.go: hooksDirs).
// A sandboxed command (CI policy, one writable root that holds no
// repository) plants a repository exactly as `git init` makes one, plus a
// hook in the work tree:
//
//	mkdir -p r/.git/objects r/.git/refs/heads r/.githooks
//	echo 'ref: refs/heads/main' > r/.git/HEAD; printf '[core]\n\trepositoryformatversion = 0\n…' > r/.git/config
//	printf '#!/bin/sh\n…' > r/.githooks/pre-commit; chmod 755 r/.githooks/pre-commit
//
// After the command agentbox's sweep (gitsweep.go: sweepNewRepos,
// riskyGitDir) judges the new repository by its .git alone: config keys
// all bookkeeping, no hook in .git/hooks, so it is left as it is and not
// reported. But git on the host takes the user's global core.hooksPath
// relative to that repository's work tree: the user's next `git commit`
// in r runs r/.githooks/pre-commit, unconfined, as the user.
//
// Severity: high (a command the sandbox ran leaves code the host runs, a
// write the policy means to deny: the hooks directory of a repository is
// one agentbox keeps read-only), where the user's global configuration
// names a relative hooks directory. Holds for an unprivileged caller too.
//
// Found by red-team round 58. Fixed: gitsweep.go (sweepNewRepos also asks
// plantedHooks, githooks.go: a new repository with hooks where a relative
// global core.hooksPath points git is disabled like one with .git/hooks).
//
// Controls: (1) the same command in the user's own repository (a writable
// root where git init ran on the host) cannot write .githooks there:
// agentbox protects the relative global hooksPath for repositories it
// finds; (2) a planted repository with its hook in .git/hooks is disabled
// (renamed) by the sweep. Premise: the host's git, with that global
// configuration, runs <work tree>/.githooks/pre-commit on commit (shown
// on a repository the test makes itself).
func TestRedteam58PlantedRepoRelativeGlobalHooksPath(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (Debian package git)")
	}
	cfgDir := hostDir(t)
	global := filepath.Join(cfgDir, "gitconfig")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = .githooks\n[user]\n\tname = rt58\n\temail = rt58@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	hostGit := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	hook := func(marker string) string {
		return "#!/bin/sh\necho HOOK-RAN > " + marker + "\n"
	}

	// Premise: git on the host runs <work tree>/.githooks/pre-commit.
	pre := hostDir(t)
	if out, err := hostGit(pre, "init", "-q"); err != nil {
		t.Fatalf("premise: git init: %v %s", err, out)
	}
	preMarker := filepath.Join(cfgDir, "premise-marker")
	os.MkdirAll(filepath.Join(pre, ".githooks"), 0o755)
	if err := os.WriteFile(filepath.Join(pre, ".githooks", "pre-commit"), []byte(hook(preMarker)), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := hostGit(pre, "commit", "-q", "--allow-empty", "-m", "x"); err != nil {
		t.Fatalf("premise: git commit: %v %s", err, out)
	}
	if _, err := os.Stat(preMarker); err != nil {
		t.Fatalf("premise: the host's git did not run .githooks/pre-commit with core.hooksPath = .githooks: %v", err)
	}

	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{} // the sandbox is under test, not the classifier
	m := newManager(t, cfg)
	exec1 := func(w, script string) *agentbox.ExecResult {
		t.Helper()
		res, err := m.Exec(context.Background(), script,
			agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(60*time.Second))
		if err != nil {
			t.Fatalf("Exec: %v", err)
		}
		return res
	}
	const initRepo = "mkdir -p r/.git/objects r/.git/refs/heads && echo 'ref: refs/heads/main' > r/.git/HEAD && " +
		"printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfilemode = true\\n\\tbare = false\\n\\tlogallrefupdates = true\\n' > r/.git/config"
	writeHook := func(dir, marker string) string {
		return "mkdir -p " + dir + " && printf '#!/bin/sh\\necho HOOK-RAN > " + marker + "\\n' > " + dir + "/pre-commit && chmod 755 " + dir + "/pre-commit && echo WROTE-HOOK"
	}

	// Control 1: the user's own repository keeps .githooks read-only.
	own := hostDir(t)
	os.Chmod(own, 0o777) // a root caller's sandbox runs as nobody
	if out, err := hostGit(own, "init", "-q"); err != nil {
		t.Fatalf("control: git init: %v %s", err, out)
	}
	res := exec1(own, "echo ok > work.txt && echo WROTE-WORK; "+writeHook(".githooks", "/dev/null"))
	if !strings.Contains(res.Stdout, "WROTE-WORK") {
		t.Fatalf("control: the repository's work tree is not writable: %q %q", res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, "WROTE-HOOK") {
		t.Fatalf("control: a command wrote .githooks of the user's own repository: %q", res.Stdout)
	}

	// Control 2: a planted repository with a hook in .git/hooks is disabled.
	ctl := hostDir(t)
	res = exec1(ctl, initRepo+" && "+writeHook("r/.git/hooks", "/dev/null"))
	if !strings.Contains(res.Stdout, "WROTE-HOOK") {
		t.Fatalf("control: the command could not plant a repository: %q %q", res.Stdout, res.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(ctl, "r", ".git")); err == nil {
		t.Fatalf("control: a planted repository with a hook in .git/hooks was not disabled: %+v", res.Violations)
	}

	// The attack: a planted repository as git init makes it, its hook in
	// the work tree's .githooks.
	w := hostDir(t)
	marker := filepath.Join(w, "hook-ran-on-host")
	res = exec1(w, initRepo+" && "+writeHook("r/.githooks", marker))
	if !strings.Contains(res.Stdout, "WROTE-HOOK") {
		t.Fatalf("premise: the command could not plant the repository: %q %q", res.Stdout, res.Stderr)
	}
	t.Logf("violations after the command: %+v", res.Violations)
	if _, err := os.Lstat(filepath.Join(w, "r", ".git")); err != nil {
		t.Logf("the planted repository was disabled: %v", err)
		return
	}
	// The user's next commit there.
	out, err := hostGit(filepath.Join(w, "r"), "commit", "-q", "--allow-empty", "-m", "user's commit")
	t.Logf("host git commit: %v %s", err, out)
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the user's git commit in the repository the command planted ran its work tree's .githooks/pre-commit on the host (wrote %q): the sweep left it, unreported (violations %+v)", strings.TrimSpace(string(b)), res.Violations)
	}
}
