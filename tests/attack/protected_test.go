//go:build linux

package attack_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
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

// TestProtectedGitHooksAndConfig attacks the protected .git/hooks and
// .git/config of a repository in a writable root: directly, and by renaming
// their unprotected parent .git away and building a new one in its place.
// Afterwards the host's git must not run anything the sandbox planted.
func TestProtectedGitHooksAndConfig(t *testing.T) {
	t.Parallel()
	w := newRepo(t)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	config := filepath.Join(w, ".git", "config")
	configBefore := readOrEmpty(config)
	evilConfig := strconv.Quote(configBefore + "[core]\n\tfsmonitor = \"touch " + marker + " #\"\n")
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		control("git_objects_writable", "mkdir:"+w+"/.git/objects/agentbox-attack", ""),
		attack("hook_direct", "put:"+w+"/.git/hooks/pre-commit|"+hookScript(marker)),
		attack("config_direct", "put:"+config+"|"+evilConfig),
		attack("rename_hooks", "rename:"+w+"/.git/hooks|"+w+"/hooks.old"),
		attack("rename_config", "rename:"+config+"|"+w+"/config.old"),
		attack("rename_dotgit", "rename:"+w+"/.git|"+w+"/.git.orig"),
		// Meaningful only when the rename went through: rebuild .git as a
		// copy the sandbox owns, then plant a hook and a configuration.
		attack("rebuild_dotgit", "exec:/bin/cp|-a|"+w+"/.git.orig/.|"+w+"/.git"),
		attack("new_hook", "put:"+w+"/.git/hooks/pre-commit|"+hookScript(marker)),
		attack("new_hook_executable", "chmod:755|"+w+"/.git/hooks/pre-commit"),
		attack("new_config", "put:"+config+"|"+evilConfig),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))

	if got := readOrEmpty(config); got != configBefore {
		t.Errorf("ESCAPE: .git/config on the host now reads:\n%s", got)
	}
	if strings.Contains(readOrEmpty(filepath.Join(w, ".git/hooks/pre-commit")), marker) {
		t.Errorf("ESCAPE: the sandbox planted .git/hooks/pre-commit on the host")
	}
	// What the developer does next.
	cmd := exec.Command("git", "-c", "safe.directory=*", "commit", "-q", "--allow-empty", "-m", "after the agent")
	cmd.Dir, cmd.Env = w, append(gitEnv(fakeHome), "PATH="+os.Getenv("PATH"))
	_ = cmd.Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("ESCAPE: the host's git ran code the sandbox planted (%s exists)", marker)
	}
}

// TestProtectedGitCommondir plants .git/commondir, which makes git read its
// configuration from a directory the sandbox controls, without touching the
// protected .git/config.
func TestProtectedGitCommondir(t *testing.T) {
	t.Parallel()
	w := newRepo(t)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	evil := filepath.Join(w, "build", "cache")
	ps := []probe{
		control("mkdir_build", "mkdir:"+w+"/build", ""),
		control("mkdir_evil", "mkdir:"+evil, ""),
		control("mkdir_evil_objects", "mkdir:"+evil+"/objects", ""),
		control("mkdir_evil_refs", "mkdir:"+evil+"/refs", ""),
		control("evil_config", "put:"+evil+"/config|"+strconv.Quote("[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch "+marker+" #\"\n"), ""),
		attack("commondir", "put:"+w+"/.git/commondir|"+strconv.Quote(evil+"\n")),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))

	if _, err := os.Stat(filepath.Join(w, ".git", "commondir")); err == nil {
		t.Errorf("ESCAPE: the sandbox created .git/commondir on the host")
	}
	cmd := exec.Command("git", "-c", "safe.directory=*", "status", "--short")
	cmd.Dir, cmd.Env = w, append(gitEnv(fakeHome), "PATH="+os.Getenv("PATH"))
	_ = cmd.Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("ESCAPE: `git status` on the host ran a command planted by the sandbox (%s exists)", marker)
	}
}

// TestProtectedPathsNotYetExisting creates protected paths (DESIGN.md:
// "inside writable roots, protected paths stay read-only") that do not
// exist yet when the sandbox starts: a missing .git/hooks in an existing
// repository, editor and agent settings, shell start-up files.
func TestProtectedPathsNotYetExisting(t *testing.T) {
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
		attack("mcp_json", "write:"+w+"/.mcp.json"),
		attack("envrc", "write:"+w+"/.envrc"),
		attack("bashrc", "write:"+w+"/.bashrc"),
		attack("gitmodules", "write:"+w+"/.gitmodules"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	for _, rel := range []string{".git/hooks", ".vscode", ".mcp.json", ".envrc", ".bashrc", ".gitmodules"} {
		if _, err := os.Lstat(filepath.Join(w, rel)); err == nil {
			t.Errorf("ESCAPE: the sandbox created protected path %s on the host", rel)
		}
	}
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
