//go:build linux

package attack_test

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

// TestRedteam22HostRenameDetachesMask: a deny-read file or a protected
// file inside a writable root is covered by a mount on its name (an empty
// mask, or a read-only bind of itself) in the sandbox's mount namespace.
// Linux lets a process in another namespace rename over or unlink a
// mountpoint, and then detaches every mount on it in every namespace
// (vfs_rename → detach_mounts). Host programs replace files exactly so:
// git writes config.lock and renames it over .git/config (`git config`,
// `git remote add`, `git branch -u` on the host while the agent works),
// git credential-store, npm (write-file-atomic), bash 5 saving
// ~/.bash_history, `sed -i`, editors. From that moment the sandbox sees the
// host's new file through its writable root, with the root's read and
// write rights in Landlock (deny paths inside writable roots are left to
// the mounts): it reads the new credential, and it writes the repository's
// .git/config (core.fsmonitor, core.hooksPath: code run by the user's next
// git command on the host) although AllowGitWrites promises hooks and
// config stay protected.
//
// Controls: before the host's rename both files are refused; a denied file
// the host does not touch stays masked; an ordinary file is written.
//
// Severity: high (a credential on the deny list is read, and a protected
// git config is written, leading to code execution on the host; needs only
// an ordinary host action during the run). Fails as root and as
// agentbox-ci. A fix must not rely on a mount on the file's own name
// inside a writable root: e.g. Landlock rules that withhold the rights on
// those names (rules on the parent directory's other entries rather than
// the whole root), or masks/binds on a parent directory that the host does
// not replace, or noticing the detach (a watch on the mountinfo) and
// ending the sandbox.
//
// Fixed: the init watches its mount table (mountWatch: poll on
// /proc/self/mountinfo) and kills the sandbox the moment a mount that
// alone protects a name (a mask, a read-only bind, their pins) is gone; the
// result carries a mount-detached violation naming the path. The attack
// fails by the sandbox's end: the script is killed while it waits for the
// host, before its read and write. A program that kept opening the name
// could still win the race between the detach and the kill (a few hundred
// microseconds; see README), which this script, waiting for the host's git
// to finish, does not try.
func TestRedteam22HostRenameDetachesMask(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is needed")
	}
	w := newDir(t, 0o755)
	if out, err := exec.Command(git, "init", "-q", w).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	oldSecret, newSecret, untouched := uniqueSecret("old"), uniqueSecret("new"), uniqueSecret("untouched")
	writeFile(t, filepath.Join(w, "token"), oldSecret, 0o644)
	writeFile(t, filepath.Join(w, "other-token"), untouched, 0o644)
	script := `W=` + w + `
try() { l=$1; shift; if "$@" >/dev/null 2>&1; then echo "$l ok"; else echo "$l fail"; fi; }
try before_read_token grep -q SECRET $W/token
try before_write_config sh -c 'echo "[core]" >> "$0/.git/config"' $W
echo started > $W/started
i=0; while [ ! -e $W/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
echo "token: $(cat $W/token 2>&1)"
try after_write_config sh -c 'printf "[core]\n\tfsmonitor = touch /tmp/pwned-by-sandbox\n" >> "$0/.git/config"' $W
try after_read_other grep -q SECRET $W/other-token
try after_write_hooks sh -c 'echo x > "$0/.git/hooks/pre-commit"' $W
try control_write sh -c 'echo fine > "$0/ok.txt"' $W
echo DONE
`
	hostDone := make(chan struct{})
	go func() {
		defer close(hostDone)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(w, "started")); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		// What host programs do while the command runs: an atomic
		// rewrite of a credential file, and git changing its own config.
		tmp := filepath.Join(w, ".token.tmp")
		if err := os.WriteFile(tmp, []byte(newSecret), 0o644); err == nil {
			os.Rename(tmp, filepath.Join(w, "token"))
		}
		exec.Command(git, "-C", w, "config", "user.name", "host user").Run()
		os.WriteFile(filepath.Join(w, "go"), nil, 0o644)
	}()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	m := newManager(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, agentbox.WithWorkingDir("/"),
		agentbox.WithWritableRoots(w), agentbox.WithDenyRead(filepath.Join(w, "token"), filepath.Join(w, "other-token")))
	<-hostDone // the host's git is done too (the sandbox may have ended before)
	if err != nil {
		t.Fatalf("the sandbox could not run the script: %v", err)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s\nviolations: %+v", res.ExitCode, res.Stdout, res.Stderr, res.Violations)
	// The sandbox may end the attack by stopping itself once the host's
	// rename took its mount away: it must then say so, naming a name the
	// host replaced, and the script has not finished.
	var stopped *agentbox.Violation
	for i, v := range res.Violations {
		if v.Rule == "mount-detached" {
			stopped = &res.Violations[i]
		}
	}
	finished := strings.Contains(res.Stdout, "DONE")
	switch {
	case stopped != nil && (finished || res.ExitCode != 137):
		t.Errorf("a mount-detached violation, but the script ran on (exit %d): %+v", res.ExitCode, *stopped)
	case stopped != nil && !strings.Contains(stopped.Detail, filepath.Join(w, "token")) && !strings.Contains(stopped.Detail, filepath.Join(w, ".git", "config")):
		t.Errorf("the sandbox was stopped for a name the host did not replace: %+v", *stopped)
	case stopped == nil && !finished:
		t.Fatalf("the script did not finish, and the sandbox does not say it stopped it")
	}
	results := map[string]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			results[f[0]] = f[1]
		}
	}
	controls := []string{"before_read_token", "before_write_config"}
	if finished {
		if results["control_write"] != "ok" {
			t.Errorf("control: an ordinary file could not be written")
		}
		controls = append(controls, "after_read_other", "after_write_hooks")
	}
	for _, l := range controls {
		if results[l] != "fail" {
			t.Errorf("control: %s: %q, want refused", l, results[l])
		}
	}
	if strings.Contains(res.Stdout, newSecret) {
		t.Errorf("ESCAPE: the command read the denied file the host rewrote (rename over it) while it ran")
	}
	if results["after_write_config"] == "ok" || finished && results["after_write_config"] != "fail" {
		t.Errorf("ESCAPE: the command wrote .git/config after the host's git rewrote it (%q)", results["after_write_config"])
	}
	if b, _ := os.ReadFile(filepath.Join(w, ".git", "config")); strings.Contains(string(b), "pwned-by-sandbox") {
		t.Errorf("ESCAPE: the repository's .git/config on the host now runs the command's fsmonitor:\n%s", b)
	}
}
