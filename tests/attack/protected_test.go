//go:build linux

package attack_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// newRepo makes a git repository in a fresh writable root on the host,
// with one commit, and returns the root.
func newRepo(t *testing.T) string {
	t.Helper()
	w := newDir(t, 0o755)
	writeFile(t, filepath.Join(w, "main.txt"), "code\n", 0o644)
	hostGit(t, w, "init", "-q")
	hostGit(t, w, "add", "main.txt")
	hostGit(t, w, "commit", "-q", "-m", "first")
	return w
}

// hostGit runs git on the host, in w, as the developer would after the
// agent's command.
func hostGit(t *testing.T, w string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = w
	cmd.Env = append(gitEnv(fakeHome), "PATH="+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("host git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func readOrEmpty(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// hookScript is what the attacker would like the developer's git to run.
func hookScript(marker string) string {
	return strconv.Quote("#!/bin/sh\ntouch " + marker + "\n")
}

// gitManagers are the two ways a Manager treats .git in writable roots:
// read-only whole (the default) and AllowGitWrites (hooks and config
// read-only, the rest writable, so that agents can commit).
func gitManagers(t *testing.T) map[string]*agentbox.Manager {
	t.Helper()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	return map[string]*agentbox.Manager{"default": ciMgr, "allow_git_writes": newManager(t, cfg)}
}

// eachGitMode runs attack in a parallel subtest for each of gitManagers,
// with a fresh repository (see newRepo) and the path of a marker file that
// planted code would create.
func eachGitMode(t *testing.T, attack func(t *testing.T, m *agentbox.Manager, mode, repo, marker string)) {
	t.Helper()
	for mode, m := range gitManagers(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			attack(t, m, mode, newRepo(t), filepath.Join(newDir(t, 0o777), "pwned"))
		})
	}
}

// hostGitRuns runs git args in dir on the host, as the developer does after
// the agent's command, and reports whether marker appeared (the planted
// code ran).
func hostGitRuns(dir, marker string, args ...string) bool {
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(gitEnv(fakeHome), "PATH="+os.Getenv("PATH"))
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		cmd.Env = append(cmd.Env, "GIT_CONFIG_GLOBAL="+g) // a (non-parallel) test's own, as agentbox sees it
	}
	_ = cmd.Run() // a repository the attack broke may make git fail; the marker is the question
	_, err := os.Stat(marker)
	return err == nil
}

// fsmonitorConfig is a git configuration whose core.fsmonitor runs a
// command on the next git status or commit.
func fsmonitorConfig(prefix, marker string) string {
	return strconv.Quote(prefix + "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch " + marker + " #\"\n")
}

// TestProtectedGitHooksAndConfig attacks the .git of a repository in a
// writable root, under both git policies: the protected hooks and config
// directly, by renaming them or their parent .git away and rebuilding it,
// and by planting .git/commondir (which makes git read its configuration
// from a directory the sandbox controls). Afterwards the host's git must
// run nothing the sandbox planted.
func TestProtectedGitHooksAndConfig(t *testing.T) {
	t.Parallel()
	eachGitMode(t, func(t *testing.T, m *agentbox.Manager, mode, w, marker string) {
		config := filepath.Join(w, ".git", "config")
		configBefore := readOrEmpty(config)
		evil := filepath.Join(w, "build", "cache")
		objects := attack("git_objects_write", "mkdir:"+w+"/.git/objects/agentbox-attack")
		if mode == "allow_git_writes" {
			objects = control("git_objects_write", "mkdir:"+w+"/.git/objects/agentbox-attack", "")
		}
		ps := []probe{
			control("write_source", "write:"+w+"/main.txt", ""),
			objects,
			attack("hook_direct", "put:"+w+"/.git/hooks/pre-commit|"+hookScript(marker)),
			attack("config_direct", "put:"+config+"|"+fsmonitorConfig(configBefore, marker)),
			attack("rename_hooks", "rename:"+w+"/.git/hooks|"+w+"/hooks.old"),
			attack("rename_config", "rename:"+config+"|"+w+"/config.old"),
			attack("rename_dotgit", "rename:"+w+"/.git|"+w+"/.git.orig"),
			// Meaningful only when the rename went through: rebuild .git as a
			// copy the sandbox owns, then plant a hook and a configuration.
			attack("rebuild_dotgit", "exec:/bin/cp|-a|"+w+"/.git.orig/.|"+w+"/.git"),
			attack("new_hook", "put:"+w+"/.git/hooks/pre-commit|"+hookScript(marker)),
			attack("new_hook_executable", "chmod:755|"+w+"/.git/hooks/pre-commit"),
			attack("new_config", "put:"+config+"|"+fsmonitorConfig(configBefore, marker)),
			// .git/commondir: git then reads evil/config instead of .git/config.
			control("evil_dirs", "mkdir:"+w+"/build", ""),
			control("evil_dir", "mkdir:"+evil, ""),
			control("evil_objects", "mkdir:"+evil+"/objects", ""),
			control("evil_refs", "mkdir:"+evil+"/refs", ""),
			control("evil_config", "put:"+evil+"/config|"+fsmonitorConfig("", marker), ""),
			attack("commondir", "put:"+w+"/.git/commondir|"+strconv.Quote(evil+"\n")),
		}
		runProbes(t, m, ps, agentbox.WithWritableRoots(w))

		if got := readOrEmpty(config); got != configBefore {
			t.Errorf("ESCAPE: .git/config on the host now reads:\n%s", got)
		}
		if strings.Contains(readOrEmpty(filepath.Join(w, ".git/hooks/pre-commit")), marker) {
			t.Errorf("ESCAPE: the sandbox planted .git/hooks/pre-commit on the host")
		}
		if _, err := os.Stat(filepath.Join(w, ".git", "commondir")); err == nil {
			t.Errorf("ESCAPE: the sandbox created .git/commondir on the host")
		}
		if hostGitRuns(w, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
			t.Errorf("ESCAPE: `git commit` on the host ran code the sandbox planted (%s exists)", marker)
		}
	})
}

// huskyWrapper is what husky (v9) puts in .husky/_ for every hook: it
// runs the project's script of the same name in .husky, if there is one.
const huskyWrapper = "#!/bin/sh\nh=\"$(dirname \"$0\")/../$(basename \"$0\")\"\n[ -f \"$h\" ] && sh \"$h\"\nexit 0\n"

// TestHooksPathInWorktree attacks a repository whose core.hooksPath names a
// directory of its work tree, as husky sets it up: git runs .husky/_/NAME,
// which runs the project's .husky/NAME. The sandbox tries to change a hook
// and its wrapper, to add a hook, and to change the pre-commit framework's
// and lefthook's configuration (which the hooks they install read at every
// commit); the developer's next commit must run none of it.
func TestHooksPathInWorktree(t *testing.T) {
	t.Parallel()
	for mode, m := range gitManagers(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newDir(t, 0o755)
			marker := filepath.Join(newDir(t, 0o777), "pwned")
			writeFile(t, filepath.Join(w, "main.txt"), "code\n", 0o644)
			for _, h := range []string{"pre-commit", "post-commit"} {
				writeFile(t, filepath.Join(w, ".husky", "_", h), huskyWrapper, 0o755)
			}
			writeFile(t, filepath.Join(w, ".husky", "pre-commit"), "exit 0\n", 0o644)
			writeFile(t, filepath.Join(w, ".pre-commit-config.yaml"), "repos: []\n", 0o644)
			writeFile(t, filepath.Join(w, "lefthook.yml"), "pre-commit:\n  commands: {}\n", 0o644)
			hostGit(t, w, "init", "-q")
			hostGit(t, w, "config", "core.hooksPath", ".husky/_")
			hostGit(t, w, "add", "main.txt")
			hostGit(t, w, "commit", "-q", "-m", "first")
			localHook := strconv.Quote("touch " + marker + "\n")
			ps := []probe{
				control("write_source", "write:"+w+"/main.txt", ""),
				attack("change_wrapper", "put:"+w+"/.husky/_/pre-commit|"+hookScript(marker)),
				attack("new_wrapper", "put:"+w+"/.husky/_/post-merge|"+hookScript(marker)),
				attack("change_project_hook", "put:"+w+"/.husky/pre-commit|"+localHook),
				attack("new_project_hook", "put:"+w+"/.husky/post-commit|"+localHook),
				attack("pre_commit_config", "put:"+w+"/.pre-commit-config.yaml|"+strconv.Quote("repos:\n- repo: local\n  hooks: []\n")),
				attack("lefthook_config", "put:"+w+"/lefthook.yml|"+strconv.Quote("pre-commit:\n  commands:\n    x:\n      run: touch "+marker+"\n")),
			}
			runProbes(t, m, ps, agentbox.WithWritableRoots(w))
			if hostGitRuns(w, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
				t.Errorf("ESCAPE: `git commit` on the host ran a hook the sandbox planted in .husky")
			}
			// Moving the directories away would let a later command put
			// directories of its own in their place.
			runProbes(t, m, []probe{
				attack("rename_wrappers", "rename:"+w+"/.husky/_|"+w+"/.husky/old"),
				attack("rename_husky", "rename:"+w+"/.husky|"+w+"/husky.old"),
			}, agentbox.WithWritableRoots(w))
		})
	}
}

// TestToolConfigsOnEnter attacks the configuration mise runs hooks and
// env scripts from when the user's shell enters the project: a file the
// user trusted once stays trusted when it changes, so a command must not
// change it. A sibling file stays writable (the control).
func TestToolConfigsOnEnter(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	hook := strconv.Quote("[hooks]\nenter = \"touch " + marker + "\"\n")
	for _, rel := range []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise/config.toml", ".config/mise/config.toml", ".config/mise.toml"} {
		writeFile(t, filepath.Join(w, rel), "[tools]\n", 0o644)
	}
	ps := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		attack("mise_toml", "put:"+w+"/mise.toml|"+hook, "EROFS"),
		attack("dot_mise_toml", "put:"+w+"/.mise.toml|"+hook, "EROFS"),
		attack("mise_local_toml", "put:"+w+"/mise.local.toml|"+hook, "EROFS"),
		attack("mise_dir_config", "put:"+w+"/.mise/config.toml|"+hook, "EROFS"),
		attack("mise_dir_new_file", "put:"+w+"/.mise/local.toml|"+hook, "EROFS"),
		attack("config_mise", "put:"+w+"/.config/mise/config.toml|"+hook, "EROFS"),
		attack("config_mise_toml", "put:"+w+"/.config/mise.toml|"+hook, "EROFS"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, rel := range []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise/config.toml", ".config/mise/config.toml", ".config/mise.toml"} {
		if b, err := os.ReadFile(filepath.Join(w, rel)); err != nil || string(b) != "[tools]\n" {
			t.Errorf("ESCAPE: %s on the host is now %q (%v)", rel, b, err)
		}
	}
}

// TestOtherVCSConfig attacks the repository configuration of Mercurial,
// Sapling and Jujutsu, which runs code at the user's next hg, sl or jj
// command (hooks, extensions, the pager), existing or added.
func TestOtherVCSConfig(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	for _, rel := range []string{".hg/hgrc", ".sl/config", ".jj/repo/config.toml"} {
		writeFile(t, filepath.Join(w, rel), "# settings\n", 0o644)
	}
	ps := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		attack("hgrc", "put:"+w+"/.hg/hgrc|"+strconv.Quote("[hooks]\npre-status = touch /tmp/pwned\n"), "EROFS"),
		attack("hg_new_file", "write:"+w+"/.hg/hgrc-extra", "EROFS"),
		attack("sapling_config", "put:"+w+"/.sl/config|"+strconv.Quote("[extensions]\nevil = /tmp/evil.py\n"), "EROFS"),
		attack("jj_config", "put:"+w+"/.jj/repo/config.toml|"+strconv.Quote("[ui]\npager = \"sh -c 'touch /tmp/pwned'\"\n"), "EROFS"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, rel := range []string{".hg/hgrc", ".sl/config", ".jj/repo/config.toml"} {
		if b, err := os.ReadFile(filepath.Join(w, rel)); err != nil || string(b) != "# settings\n" {
			t.Errorf("ESCAPE: %s on the host is now %q (%v)", rel, b, err)
		}
	}
}

// TestIncludedGitConfig attacks a repository whose config includes a file
// of the work tree (include.path and includeIf, a common way to share
// settings in a project): git reads that file as its own config, so a
// core.fsmonitor planted there runs at the developer's next git status.
func TestIncludedGitConfig(t *testing.T) {
	t.Parallel()
	eachGitMode(t, func(t *testing.T, m *agentbox.Manager, _, w, marker string) {
		writeFile(t, filepath.Join(w, "config", "project.gitconfig"), "[core]\n\tautocrlf = false\n", 0o644)
		hostGit(t, w, "config", "include.path", "../config/project.gitconfig")
		hostGit(t, w, "config", "includeIf.gitdir:"+w+"/.path", "../config/main.gitconfig")
		hostGit(t, w, "config", "--add", "include.path", "../config/missing.gitconfig")
		hostGit(t, w, "config", "--add", "include.path", "../local/git/extra.gitconfig")
		ps := []probe{
			control("write_source", "write:"+w+"/main.txt", ""),
			control("write_other_config", "put:"+w+"/config/other.gitconfig|\"x\"", ""),
			attack("included_config", "put:"+w+"/config/project.gitconfig|"+fsmonitorConfig("", marker)),
			attack("included_if_config", "put:"+w+"/config/main.gitconfig|"+fsmonitorConfig("", marker)),
			attack("missing_included_config", "put:"+w+"/config/missing.gitconfig|"+fsmonitorConfig("", marker)),
			attack("included_config_dir", "mkdir:"+w+"/local"),
			attack("included_config_subdir", "mkdir:"+w+"/local/git"),
			attack("included_config_missing_dir", "put:"+w+"/local/git/extra.gitconfig|"+fsmonitorConfig("", marker)),
			// git inside still reads the configuration, held files included.
			control("git_status_inside", "exec:/usr/bin/git|-c|safe.directory=*|-C|"+w+"|status|--short", "exit 0"),
		}
		runProbes(t, m, ps, agentbox.WithWritableRoots(w))
		if hostGitRuns(w, marker, "status") {
			t.Errorf("ESCAPE: `git status` on the host ran a command the sandbox planted in an included config")
		}
		for _, held := range []string{"config/missing.gitconfig", "local"} {
			if _, err := os.Lstat(filepath.Join(w, held)); err == nil {
				t.Errorf("the held %s was left on the host", held)
			}
		}
		runProbes(t, m, []probe{attack("rename_included", "rename:"+w+"/config/project.gitconfig|"+w+"/config/old")},
			agentbox.WithWritableRoots(w))
	})
}

// TestSubmoduleAndWorktreeGitDirs attacks the git directories a
// repository keeps for its submodules (.git/modules/NAME) and linked work
// trees (.git/worktrees/NAME): their hooks, config and commondir are as
// dangerous as the top ones. With AllowGitWrites the rest of .git is
// writable, so each must be protected on its own; by default .git is
// read-only whole.
func TestSubmoduleAndWorktreeGitDirs(t *testing.T) {
	t.Parallel()
	eachGitMode(t, func(t *testing.T, m *agentbox.Manager, _, w, marker string) {
		lib := newRepo(t)
		hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
		hostGit(t, w, "commit", "-q", "-m", "add lib")
		hostGit(t, w, "config", "extensions.worktreeConfig", "true")
		wt := filepath.Join(newDir(t, 0o755), "wt")
		hostGit(t, w, "worktree", "add", "-q", wt)
		mod := filepath.Join(w, ".git", "modules", "lib")
		wtGit := filepath.Join(w, ".git", "worktrees", "wt")
		evil := filepath.Join(w, "build", "evil")
		ps := []probe{
			control("write_source", "write:"+w+"/main.txt", ""),
			attack("submodule_hook", "put:"+mod+"/hooks/pre-commit|"+hookScript(marker)),
			attack("submodule_hook_executable", "chmod:755|"+mod+"/hooks/pre-commit"),
			attack("submodule_config", "put:"+mod+"/config|"+fsmonitorConfig(readOrEmpty(mod+"/config"), marker)),
			attack("worktree_config", "put:"+wtGit+"/config.worktree|"+fsmonitorConfig("", marker)),
			// A commondir makes git take config and hooks from a directory
			// the sandbox builds.
			control("evil_dirs", "mkdir:"+w+"/build", ""),
			control("evil_dir", "mkdir:"+evil, ""),
			control("evil_objects", "mkdir:"+evil+"/objects", ""),
			control("evil_refs", "mkdir:"+evil+"/refs", ""),
			control("evil_config", "put:"+evil+"/config|"+fsmonitorConfig("[extensions]\n\tworktreeConfig = true\n", marker), ""),
			attack("submodule_commondir", "put:"+mod+"/commondir|"+strconv.Quote(evil+"\n")),
			attack("worktree_commondir", "put:"+wtGit+"/commondir|"+strconv.Quote(evil+"\n")),
		}
		runProbes(t, m, ps, agentbox.WithWritableRoots(w))
		if hostGitRuns(filepath.Join(w, "lib"), marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
			t.Errorf("ESCAPE: `git commit` in the submodule on the host ran code the sandbox planted")
		}
		if hostGitRuns(wt, marker, "status") {
			t.Errorf("ESCAPE: `git status` in the linked work tree on the host ran code the sandbox planted")
		}
		// Moving a git directory away would let a later command put one of
		// its own in its place.
		runProbes(t, m, []probe{
			attack("rename_submodule_gitdir", "rename:"+mod+"|"+w+"/.git/modules/old"),
			attack("rename_worktree_gitdir", "rename:"+wtGit+"|"+w+"/.git/worktrees/old"),
		}, agentbox.WithWritableRoots(w))
	})
}

// TestHooksPathFromGlobalConfig attacks a repository that takes
// core.hooksPath from the user's global git configuration (a relative
// .githooks, which does not exist yet in the repository): the sandbox must
// not create the directory nor a hook in it. Not parallel: it points
// GIT_CONFIG_GLOBAL, for agentbox and the host's git, at its own file.
func TestHooksPathFromGlobalConfig(t *testing.T) {
	gitconfig := filepath.Join(newDir(t, 0o755), "gitconfig")
	writeFile(t, gitconfig, "[core]\n\thooksPath = .githooks  # every project's own\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	w := newRepo(t)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		attack("hooks_dir", "mkdir:"+w+"/.githooks"),
		attack("hook", "put:"+w+"/.githooks/pre-commit|"+hookScript(marker)),
		attack("hook_executable", "chmod:755|"+w+"/.githooks/pre-commit"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	if _, err := os.Stat(filepath.Join(w, ".githooks")); err == nil {
		t.Errorf("ESCAPE: the sandbox created .githooks on the host")
	}
	if hostGitRuns(w, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
		t.Errorf("ESCAPE: `git commit` on the host ran a hook the sandbox planted in .githooks")
	}
}

// TestNestedRepository attacks a repository below the writable root (a
// workspace of several projects is a common writable root): its .git is as
// dangerous as the root's own.
func TestNestedRepository(t *testing.T) {
	t.Parallel()
	for mode, m := range gitManagers(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newDir(t, 0o755)
			app := filepath.Join(w, "projects", "app")
			writeFile(t, filepath.Join(app, "main.txt"), "code\n", 0o644)
			hostGit(t, app, "init", "-q")
			hostGit(t, app, "add", "main.txt")
			hostGit(t, app, "commit", "-q", "-m", "first")
			marker := filepath.Join(newDir(t, 0o777), "pwned")
			config := filepath.Join(app, ".git", "config")
			configBefore := readOrEmpty(config)
			ps := []probe{
				control("write_source", "write:"+app+"/main.txt", ""),
				attack("nested_hook", "put:"+app+"/.git/hooks/pre-commit|"+hookScript(marker)),
				attack("nested_hook_executable", "chmod:755|"+app+"/.git/hooks/pre-commit"),
				attack("nested_config", "put:"+config+"|"+fsmonitorConfig(configBefore, marker)),
			}
			runProbes(t, m, ps, agentbox.WithWritableRoots(w))
			if got := readOrEmpty(config); got != configBefore {
				t.Errorf("ESCAPE: the nested repository's .git/config on the host now reads:\n%s", got)
			}
			if hostGitRuns(app, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
				t.Errorf("ESCAPE: `git commit` in the nested repository on the host ran code the sandbox planted")
			}
		})
	}
}

// TestBareRepository attacks a bare repository inside the writable root,
// used as the project's local remote: git runs its hooks (post-receive)
// at every push to it, so they must be as read-only as a work tree's. The
// developer's next push must run nothing the sandbox planted.
func TestBareRepository(t *testing.T) {
	t.Parallel()
	eachGitMode(t, func(t *testing.T, m *agentbox.Manager, _, w, marker string) {
		remote := filepath.Join(w, "remote.git")
		hostGit(t, w, "init", "-q", "--bare", remote)
		hostGit(t, w, "remote", "add", "origin", remote)
		ps := []probe{
			control("write_source", "write:"+w+"/main.txt", ""),
			attack("remote_hook", "put:"+remote+"/hooks/post-receive|"+hookScript(marker)),
			attack("remote_hook_executable", "chmod:755|"+remote+"/hooks/post-receive"),
			attack("remote_config", "put:"+remote+"/config|"+fsmonitorConfig(readOrEmpty(remote+"/config"), marker)),
		}
		runProbes(t, m, ps, agentbox.WithWritableRoots(w))
		if hostGitRuns(w, marker, "push", "-q", "origin", "HEAD") {
			t.Errorf("ESCAPE: `git push` to the bare repository on the host ran a hook the sandbox planted")
		}
	})
}

// TestPlantedRepositoryBeyondTheWalk hides a planted repository behind
// more directories than agentbox walks after a command. A bounded walk
// cannot find it; what must not happen is silence: the result says that
// the check stopped. (The bound is 50,000 directories; before the run a
// root past it is refused, TestRedteam20UserRepoPastScanBounds.)
func TestPlantedRepositoryBeyondTheWalk(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	g := filepath.Join(w, "zzz", ".git")
	ps := []probe{
		control("many_dirs", "exec:/bin/sh|-c|cd "+w+" && mkdir $(seq -f d%05g 50001) zzz", "exit 0"),
		control("mkdir_git", "mkdir:"+g, ""),
		control("head", "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
		control("objects", "mkdir:"+g+"/objects", ""),
		control("refs", "mkdir:"+g+"/refs", ""),
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, v := range res.Violations {
		if v.Rule == "planted-repository" && strings.Contains(v.Detail, "were not checked") {
			return
		}
	}
	t.Errorf("ESCAPE UNREPORTED: the check for planted repositories stopped without saying so: %+v", res.Violations)
}

// TestPlantedRepository creates, in a subdirectory of the writable root, a
// repository of the sandbox's making (a .git directory, and a .git file
// pointing at a git directory elsewhere) whose configuration runs a
// command. A developer whose shell prompt or editor runs `git status` on
// entering the directory runs it on the host.
func TestPlantedRepository(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	for _, d := range []string{"src", "lib"} {
		writeFile(t, filepath.Join(w, d, "code.txt"), "code\n", 0o644)
	}
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	dotgit := filepath.Join(w, "src", ".git")
	inBuild := filepath.Join(w, "build", ".git") // build output is not walked, but a repository right in it is found
	hidden := filepath.Join(w, ".cache", "g")
	// No mount can forbid a new name in a writable directory: the planting
	// itself succeeds inside the sandbox. What must not happen is the host's
	// git running it afterwards: agentbox disables such repositories when
	// the command ends and reports them.
	ps := []probe{control("write_source", "write:"+w+"/src/code.txt", ""), control("mkdir_cache", "mkdir:"+w+"/.cache", ""),
		control("mkdir_build", "mkdir:"+w+"/build", "")}
	for _, g := range []string{dotgit, hidden, inBuild} {
		ps = append(ps,
			control("mkdir_"+g, "mkdir:"+g, ""),
			control("head_"+g, "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
			control("objects_"+g, "mkdir:"+g+"/objects", ""),
			control("refs_"+g, "mkdir:"+g+"/refs", ""),
			control("config_"+g, "put:"+g+"/config|"+fsmonitorConfig("", marker), ""),
		)
	}
	ps = append(ps, control("gitfile", "put:"+w+"/lib/.git|"+strconv.Quote("gitdir: "+hidden+"\n"), ""))
	// A .git that is a symbolic link to the planted git directory: git
	// follows it.
	ps = append(ps, control("mkdir_docs", "mkdir:"+w+"/docs", ""), control("gitlink_symlink", "symlink:"+hidden+"|"+w+"/docs/.git", ""))
	// A bare repository with a hook: run at the next push to it.
	bare := filepath.Join(w, "tools.git")
	ps = append(ps,
		control("mkdir_bare", "mkdir:"+bare, ""),
		control("head_bare", "put:"+bare+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
		control("objects_bare", "mkdir:"+bare+"/objects", ""),
		control("refs_bare", "mkdir:"+bare+"/refs", ""),
		control("hooks_bare", "mkdir:"+bare+"/hooks", ""),
		control("hook_bare", "put:"+bare+"/hooks/post-receive|"+hookScript(marker), ""),
	)
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, d := range []string{"src", "lib", "docs", "build"} {
		if hostGitRuns(filepath.Join(w, d), marker, "status", "--short") {
			t.Errorf("ESCAPE: `git status` in %s on the host ran a command from a repository the sandbox planted", d)
			os.Remove(marker)
		}
	}
	reported := 0
	for _, v := range res.Violations {
		if v.Rule == "planted-repository" {
			reported++
		}
	}
	if reported != 5 {
		t.Errorf("want the five planted repositories reported, got violations %+v", res.Violations)
	}
	for _, g := range []string{dotgit, filepath.Join(w, "lib", ".git"), filepath.Join(w, "docs", ".git"), inBuild, bare} {
		if _, err := os.Lstat(g + ".agentbox-quarantine"); err != nil {
			t.Errorf("%s was not disabled: %v", g, err)
		}
	}
	// A repository with nothing but what git itself writes is left alone.
	clean := filepath.Join(w, "fresh")
	writeFile(t, filepath.Join(clean, "f"), "x\n", 0o644)
	_, res = runProbes(t, ciMgr, []probe{control("clean_repo", "exec:/usr/bin/git|init|-q|"+clean, "")}, agentbox.WithWritableRoots(w), agentbox.WithEnv("HOME="+w))
	if _, err := os.Stat(filepath.Join(clean, ".git")); err != nil || len(res.Violations) != 0 {
		t.Errorf("a clean `git init` was disabled: %v %+v", err, res.Violations)
	}
}

// TestProtectedPathsNotYetExisting creates protected paths that do not
// exist yet when the sandbox starts: editor and agent settings in a
// writable root, a missing .git/hooks of an existing repository (with git
// writes allowed), and shell start-up files in a writable root that is the
// home directory.
func TestProtectedPathsNotYetExisting(t *testing.T) {
	t.Parallel()
	t.Run("project", func(t *testing.T) {
		t.Parallel()
		w := newRepo(t)
		if err := os.RemoveAll(filepath.Join(w, ".git", "hooks")); err != nil {
			t.Fatal(err)
		}
		ps := []probe{
			control("write_source", "write:"+w+"/notes.txt", ""),
			attack("git_hooks_dir", "mkdir:"+w+"/.git/hooks"),
			attack("git_hook", "put:"+w+"/.git/hooks/post-checkout|"+hookScript("/nonexistent")),
			attack("vscode_dir", "mkdir:"+w+"/.vscode"),
			attack("vscode_tasks", "write:"+w+"/.vscode/tasks.json"),
			attack("idea_dir", "mkdir:"+w+"/.idea"),
			attack("mcp_json", "write:"+w+"/.mcp.json"),
			attack("envrc", "write:"+w+"/.envrc"),
			attack("gitmodules", "write:"+w+"/.gitmodules"),
			attack("devcontainer", "mkdir:"+w+"/.devcontainer"),
			attack("claude_settings", "mkdir:"+w+"/.claude"),
			attack("cursor_mcp", "mkdir:"+w+"/.cursor"),
			attack("gemini_settings", "mkdir:"+w+"/.gemini"),
			attack("zed_tasks", "mkdir:"+w+"/.zed"),
			// Coding agents' project settings: MCP servers, plugins, lint
			// commands the next agent run outside the sandbox would start.
			attack("roo_mcp", "mkdir:"+w+"/.roo"),
			attack("kilocode_mcp", "mkdir:"+w+"/.kilocode"),
			attack("continue_mcp", "mkdir:"+w+"/.continue"),
			attack("amazonq_mcp", "mkdir:"+w+"/.amazonq"),
			attack("kiro_mcp", "mkdir:"+w+"/.kiro"),
			attack("codex_config", "mkdir:"+w+"/.codex"),
			attack("junie_mcp", "mkdir:"+w+"/.junie"),
			attack("qwen_settings", "mkdir:"+w+"/.qwen"),
			attack("opencode_plugins", "mkdir:"+w+"/.opencode"),
		}
		cfg := ciConfig()
		cfg.Filesystem.AllowGitWrites = true
		runProbes(t, newManager(t, cfg), ps, agentbox.WithWritableRoots(w))
		for _, rel := range []string{".git/hooks", ".vscode", ".idea", ".mcp.json", ".envrc", ".gitmodules",
			".devcontainer", ".claude", ".cursor", ".gemini", ".zed",
			".roo", ".kilocode", ".continue", ".amazonq", ".kiro", ".codex", ".junie", ".qwen", ".opencode"} {
			if fi, err := os.Lstat(filepath.Join(w, rel)); err == nil && !(fi.IsDir() && isEmptyDir(filepath.Join(w, rel))) {
				t.Errorf("ESCAPE: the sandbox created protected path %s on the host", rel)
			}
		}
	})
	t.Run("home", func(t *testing.T) {
		t.Parallel()
		note := filepath.Join(fakeHome, "notes-"+filepath.Base(newDir(t, 0o755)))
		t.Cleanup(func() { os.Remove(note) })
		before := snapshotOf(t, fakeHome, true)
		ps := []probe{
			control("write_note", "write:"+note, ""),
			// git and shells still run: a missing ~/.gitconfig or ~/.bashrc
			// is held by an empty file, not a directory they cannot read.
			control("git_global_config", "exec:/usr/bin/git|config|--global|--list", "exit 0"),
			control("shell_rc", "exec:/bin/bash|-c|. ~/.bashrc && . ~/.bash_aliases && echo shell ok", "exit 0: shell ok"),
			// A login bash still reads ~/.profile past the held .bash_profile.
			control("login_shell", "exec:/bin/bash|-lc|echo profile=$AGENTBOX_TEST_PROFILE", "exit 0: profile=read"),
			attack("bashrc", "write:"+fakeHome+"/.bashrc"),
			attack("zshrc", "write:"+fakeHome+"/.zshrc"),
			attack("profile", "write:"+fakeHome+"/.profile"),
			attack("gitconfig", "write:"+fakeHome+"/.gitconfig"),
			attack("git_config_dir", "mkdir:"+fakeHome+"/.config/git"),
			attack("bash_aliases", "write:"+fakeHome+"/.bash_aliases"),
			attack("fish_config", "mkdir:"+fakeHome+"/.config/fish"),
			attack("systemd_dir", "mkdir:"+fakeHome+"/.config/systemd"),
			attack("systemd_user_unit", "mkdir:"+fakeHome+"/.config/systemd/user"),
			attack("autostart_entry", "mkdir:"+fakeHome+"/.config/autostart"),
		}
		runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(fakeHome))
		after := snapshotOf(t, fakeHome, true)
		delete(after, filepath.Base(note))
		for _, d := range diffSnapshots(before, after) {
			// Sandboxes running at the same time with this home writable hold
			// its missing deny paths (.ssh, .aws, ...) with empty placeholder
			// directories, and remove them when done; those are not changes
			// the sandbox made.
			if rel, ok := strings.CutPrefix(d, "created "); ok && isPlaceholder(after[rel], filepath.Join(fakeHome, rel)) {
				continue
			}
			// Nor are the directories tests running beside this one make
			// in the home for themselves (newDirIn names them after the
			// test) and remove when done.
			if _, rel, _ := strings.Cut(d, " "); strings.HasPrefix(rel, "Test") {
				continue
			}
			t.Errorf("ESCAPE: a shell or git start-up file in the home changed on the host: %s", d)
		}
	})
}

// TestAgentConfigFiles attacks coding agents' configuration files at the
// top of a writable root, which name commands (MCP servers, lint commands)
// the agent starts when it is next run on the project, outside any
// sandbox: an existing one stays read-only; one the command creates is
// renamed away after the run and reported. The control: the command's
// own work stays, and git inside sees no stray files.
func TestAgentConfigFiles(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	writeFile(t, filepath.Join(w, "opencode.json"), "{}\n", 0o644)
	planted := []string{"opencode.jsonc", "crush.json", ".crush.json", ".aider.conf.yml"}
	ps := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		attack("existing_opencode_json", "put:"+w+"/opencode.json|"+strconv.Quote(`{"mcp":{"x":{"type":"local","command":["/nonexistent"]}}}`), "EROFS"),
	}
	for _, name := range planted {
		// Created during the run (nothing holds them): caught afterwards.
		ps = append(ps, control("plant_"+name, "put:"+w+"/"+name+"|"+strconv.Quote("lint-cmd: /nonexistent\n"), ""))
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	if b, err := os.ReadFile(filepath.Join(w, "opencode.json")); err != nil || string(b) != "{}\n" {
		t.Errorf("ESCAPE: the existing opencode.json is now %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(w, "main.go")); err != nil {
		t.Errorf("control: the command's own file is gone: %v", err)
	}
	for _, name := range planted {
		if _, err := os.Lstat(filepath.Join(w, name)); err == nil {
			t.Errorf("ESCAPE: %s planted by the command is still in place", name)
		}
		if _, err := os.Lstat(filepath.Join(w, name+".agentbox-quarantine")); err != nil {
			t.Errorf("%s was not kept aside for the user: %v", name, err)
		}
		found := false
		for _, v := range res.Violations {
			found = found || v.Rule == "planted-agent-config" && strings.Contains(v.Detail, filepath.Join(w, name))
		}
		if !found {
			t.Errorf("no planted-agent-config violation names %s: %+v", name, res.Violations)
		}
	}
}

// isPlaceholder reports whether p, described as desc by snapshotOf, was a
// directory that is now empty or gone again.
func isPlaceholder(desc, p string) bool {
	field, _, _ := strings.Cut(strings.TrimPrefix(desc, "mode="), " ")
	if mode, err := strconv.ParseUint(field, 8, 32); err != nil || mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	// One read: a placeholder may vanish between two looks at it.
	ents, err := os.ReadDir(p)
	return errors.Is(err, fs.ErrNotExist) || err == nil && len(ents) == 0
}

func isEmptyDir(p string) bool {
	ents, err := os.ReadDir(p)
	return err == nil && len(ents) == 0
}

// TestDeniedPathParentRenamed renames the unprotected parent of a deny-write
// file and of a deny-read file inside the writable root, then writes new
// files at the denied paths. The host must still find the original files
// where they were.
func TestDeniedPathParentRenamed(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	roFile := filepath.Join(w, "conf", "settings.toml")
	secretFile := filepath.Join(w, "private", "token.txt")
	secret := uniqueSecret("nested")
	writeFile(t, roFile, "original = true\n", 0o644)
	writeFile(t, secretFile, secret, 0o644)
	ps := []probe{
		control("write_elsewhere", "write:"+w+"/conf/other.toml", ""),
		attack("deny_write_direct", "write:"+roFile),
		attack("deny_read_direct", "read:"+secretFile),
		attack("rename_deny_write_parent", "rename:"+w+"/conf|"+w+"/conf.old"),
		attack("recreate_deny_write_parent", "mkdir:"+w+"/conf"),
		attack("replace_deny_write_file", "write:"+roFile),
		attack("rename_deny_read_parent", "rename:"+w+"/private|"+w+"/private.old"),
		attack("read_moved_secret", "read:"+w+"/private.old/token.txt"),
		attack("recreate_deny_read_parent", "mkdir:"+w+"/private"),
		attack("replace_deny_read_file", "write:"+secretFile),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w),
		agentbox.WithDenyWrite(roFile), agentbox.WithDenyRead(secretFile))
	if got := readOrEmpty(roFile); got != "original = true\n" {
		t.Errorf("ESCAPE: deny-write file %s now reads %q on the host", roFile, got)
	}
	if got := readOrEmpty(secretFile); got != secret {
		t.Errorf("ESCAPE: deny-read file %s now reads %q on the host", secretFile, got)
	}
	// The next command, under the same policy: wherever the secret is now,
	// it must stay unreadable.
	next := []probe{
		control("write_elsewhere", "write:"+w+"/conf/other2.toml", ""),
		attack("read_secret_where_it_was_moved", "read:"+w+"/private.old/token.txt"),
		attack("read_secret_path", "read:"+secretFile),
	}
	o, _ := runProbes(t, ciMgr, next, agentbox.WithWritableRoots(w),
		agentbox.WithDenyWrite(roFile), agentbox.WithDenyRead(secretFile))
	for label, r := range o.results {
		if strings.Contains(r.detail, secret) {
			t.Errorf("ESCAPE %s: the denied secret was read in the next command: %q", label, r.detail)
		}
	}
}

// TestGlobalHooksDirWritable attacks the user's global git configuration
// (GIT_CONFIG_GLOBAL) and the hooks directory it names by absolute path,
// for every repository:
// when it lies in a writable root (a writable home with ~/.githooks), a
// hook planted there runs at the next commit in any repository on the
// host, even when the writable root holds no repository of its own. Not
// parallel: it points GIT_CONFIG_GLOBAL at its own file.
func TestGlobalHooksDirWritable(t *testing.T) {
	hooksHome := newDir(t, 0o755) // the writable root: no repository in it
	hooks := filepath.Join(hooksHome, "githooks")
	gitconfig := filepath.Join(hooksHome, "gitconfig") // GIT_CONFIG_GLOBAL in the writable root too
	writeFile(t, gitconfig, "[core]\n\thooksPath = "+hooks+"\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	ps := []probe{
		control("write_note", "write:"+hooksHome+"/notes.txt", ""),
		attack("hooks_dir", "mkdir:"+hooks),
		attack("hook", "put:"+hooks+"/pre-commit|"+hookScript(marker)),
		attack("hook_executable", "chmod:755|"+hooks+"/pre-commit"),
		attack("global_config", "put:"+gitconfig+"|"+fsmonitorConfig("[core]\n\thooksPath = "+hooks+"\n", marker)),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(hooksHome))
	elsewhere := newRepo(t) // any repository of the user's, outside the writable root
	if hostGitRuns(elsewhere, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
		t.Errorf("ESCAPE: `git commit` on the host ran a hook the sandbox planted in the global hooks directory")
	}
}
