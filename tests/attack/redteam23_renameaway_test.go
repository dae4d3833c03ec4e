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

// TestRedteam23HostRenameAwayUnwatched: the mount watch (mountWatch) ends
// the sandbox when a host program's rename *over* a masked or read-only
// name, or its removal, detaches the protective mount: both change the
// sandbox's mount table, which wakes the watch's poll. But a host rename
// *of* the protected name (the name as rename's source, moved away) detaches
// nothing: the mount stays on its dentry, which now has another name, and
// the mount table does not change (same mount IDs), so poll never wakes
// and the watch never looks at the names again. The original name is then
// an ordinary name in the writable root, with the root's rights in
// Landlock. Host programs do exactly this: Emacs's default save
// (backup-by-copying nil) renames FILE to FILE~ and writes a new FILE;
// vim's writebackup with backupcopy=no, logrotate, `mv f f.bak && ... > f`,
// a directory moved aside and made anew (`mv secrets secrets.old; mkdir
// secrets`), and renameat2(RENAME_EXCHANGE) (`mv --exchange`), which
// detaches nothing either.
//
// The attack: a writable root holds a deny-read file (token), a deny-read
// directory (secrets/) and .git/config (protected). While the command
// runs, the host moves each aside and writes the new one (Emacs-style).
// The command then reads the new token and secrets/key, and writes
// .git/config (core.fsmonitor: code run by the user's next git command on
// the host). The sandbox is never stopped: the mount table did not change.
//
// Controls: before the host acts, the token and secrets/key are refused
// and .git/config is not writable; a denied file the host does not touch
// stays masked after; an ordinary file is written.
//
// Severity: high (the same outcome as TestRedteam22HostRenameDetachesMask,
// which the mount watch was meant to close: a denied credential read, the
// host's git config written; needs only an ordinary host action, an
// editor's save, during the run; and the README's "a host rename ... ends
// the sandbox" does not hold). Fails as root and as agentbox-ci. A fix
// must notice a protected name changing its inode/dentry, not only the
// mount table: e.g. fanotify/inotify on the parent directories of watched
// names (IN_MOVED_FROM / IN_MOVE_SELF / IN_DELETE_SELF of the mountpoint's
// dentry), a periodic statx of each watched name, or protection that does
// not rest on a mount on the name itself.
//
// Fixed: the mount watch also watches, with inotify, every directory from
// the writable root (scratch directory, shown directory) down to each
// watched name for entries moved out (dirWatch), in the same poll as the
// mount table; a move of a watched name or of a directory on the way wakes
// it, its statx look finds the name no longer on its mount, and it kills
// the sandbox (mount-detached) before the command reads or writes the new
// files.
func TestRedteam23HostRenameAwayUnwatched(t *testing.T) {
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
	oldKey, newKey := uniqueSecret("oldkey"), uniqueSecret("newkey")
	writeFile(t, filepath.Join(w, "token"), oldSecret, 0o644)
	writeFile(t, filepath.Join(w, "other-token"), untouched, 0o644)
	writeFile(t, filepath.Join(w, "secrets", "key"), oldKey, 0o644)
	script := `W=` + w + `
try() { l=$1; shift; if "$@" >/dev/null 2>&1; then echo "$l ok"; else echo "$l fail"; fi; }
try before_read_token grep -q SECRET $W/token
try before_read_key grep -q SECRET $W/secrets/key
try before_write_config sh -c 'echo "[core]" >> "$0/.git/config"' $W
echo started > $W/started
i=0; while [ ! -e $W/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
sleep 0.3
echo "token: $(cat $W/token 2>&1)"
echo "key: $(cat $W/secrets/key 2>&1)"
try after_write_config sh -c 'printf "[core]\n\tfsmonitor = touch /tmp/pwned-by-sandbox-rt23g\n" >> "$0/.git/config"' $W
try after_read_other grep -q SECRET $W/other-token
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
		// An editor's save with a backup (Emacs's default): the old file
		// renamed to FILE~, the new one written at the name.
		tok := filepath.Join(w, "token")
		if os.Rename(tok, tok+"~") == nil {
			os.WriteFile(tok, []byte(newSecret), 0o644)
		}
		cfg := filepath.Join(w, ".git", "config")
		if b, err := os.ReadFile(cfg); err == nil && os.Rename(cfg, cfg+"~") == nil {
			os.WriteFile(cfg, append(b, "[user]\n\tname = host user\n"...), 0o644)
		}
		// A directory moved aside and made anew.
		sec := filepath.Join(w, "secrets")
		if os.Rename(sec, sec+".old") == nil {
			os.Mkdir(sec, 0o755)
			os.WriteFile(filepath.Join(sec, "key"), []byte(newKey), 0o644)
		}
		os.WriteFile(filepath.Join(w, "go"), nil, 0o644)
	}()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	m := newManager(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script}, agentbox.WithWorkingDir("/"),
		agentbox.WithWritableRoots(w),
		agentbox.WithDenyRead(filepath.Join(w, "token"), filepath.Join(w, "other-token"), filepath.Join(w, "secrets")))
	<-hostDone
	if err != nil {
		t.Fatalf("the sandbox could not run the script: %v", err)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s\nviolations: %+v", res.ExitCode, res.Stdout, res.Stderr, res.Violations)
	stopped := false
	for _, v := range res.Violations {
		if v.Rule == "mount-detached" {
			stopped = true
		}
	}
	finished := strings.Contains(res.Stdout, "DONE")
	if !stopped && !finished {
		t.Fatalf("the script did not finish, and the sandbox does not say it stopped it")
	}
	results := map[string]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			results[f[0]] = f[1]
		}
	}
	controls := []string{"before_read_token", "before_read_key", "before_write_config"}
	if finished {
		if results["control_write"] != "ok" {
			t.Errorf("control: an ordinary file could not be written")
		}
		controls = append(controls, "after_read_other")
	}
	for _, l := range controls {
		if results[l] != "fail" {
			t.Errorf("control: %s: %q, want refused", l, results[l])
		}
	}
	if strings.Contains(res.Stdout, untouched) {
		t.Errorf("control: the denied file the host did not touch was read")
	}
	if strings.Contains(res.Stdout, newSecret) {
		t.Errorf("ESCAPE: the command read the denied file the host rewrote (old one renamed away) while it ran; stopped by the watch: %v", stopped)
	}
	if strings.Contains(res.Stdout, newKey) {
		t.Errorf("ESCAPE: the command read a file of the denied directory the host moved aside and made anew; stopped by the watch: %v", stopped)
	}
	if results["after_write_config"] == "ok" {
		t.Errorf("ESCAPE: the command wrote .git/config after the host's editor saved it (old one renamed away)")
	}
	if b, _ := os.ReadFile(filepath.Join(w, ".git", "config")); strings.Contains(string(b), "pwned-by-sandbox") {
		t.Errorf("ESCAPE: the repository's .git/config on the host now runs the command's fsmonitor:\n%s", b)
	}
}
