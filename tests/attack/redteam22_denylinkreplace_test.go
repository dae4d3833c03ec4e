//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam22DeniedLinkReplaced: a deny-read path inside a writable root
// that is a symbolic link (a dotfile manager's ~/.npmrc ->
// dotfiles/npmrc, ~/.ssh -> a synced folder, ~/.aws -> a directory outside
// the home) is resolved by the caller, which denies both names; the plan
// masks the target, but for the link itself maskDenied does nothing ("a
// symlink cannot be a mountpoint") and nothing holds it (opHoldLink is
// used for protected names and deny-write links only). A denied path that
// is a file or a directory is covered by a read-only mask and pinned, so
// the command can neither write nor replace it; a denied link the command
// simply removes and replaces with a file or directory of its own. After
// the run the host's tools read the command's ~/.npmrc (node-options,
// script-shell: code on the host at the next npm run), ~/.ssh/config
// (ProxyCommand, Match exec) or ~/.aws/config (credential_process) instead
// of the user's, and authorized_keys can be planted; the user's secrets
// stay where the links led, so links to them from the new directory keep
// everything working for the user.
//
// Controls: the secret is not readable (the target is masked), an
// ordinary file in the same root is written, and a denied path that is a
// plain file beside the links can be neither written nor replaced.
//
// Severity: medium (persistence / code execution on the host through a
// credential store's configuration, for any caller whose writable root
// holds a denied link: a writable home with stow-managed dotfiles under
// the default deny list, or WithDenyRead naming a link). Fails as root
// and as agentbox-ci. A fix would hold a denied link as a deny-write link
// is held (opHoldLink on the link, its parents pinned), so that it can be
// neither removed, renamed nor replaced while the command runs.
//
// Fixed: the plan holds a deny-read path that is a link as it holds a
// deny-write or protected one (protectNames -> holdTarget: opHoldLink on
// it and every link on the way, its parents pinned); a deny path named
// through a linked directory (the caller keeps that name: throughLinks)
// has the linked directory held (TestDeniedPathThroughLinkedDirHeld).
func TestRedteam22DeniedLinkReplaced(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	outside := newDir(t, 0o755)
	secret := uniqueSecret("npm-token")
	writeFile(t, filepath.Join(w, "dotfiles", "npmrc"), "//registry.npmjs.org/:_authToken="+secret+"\n", 0o600)
	writeFile(t, filepath.Join(w, "dotfiles", "ssh", "id_ed25519"), uniqueSecret("ssh"), 0o600)
	writeFile(t, filepath.Join(outside, "aws", "credentials"), uniqueSecret("aws"), 0o600)
	writeFile(t, filepath.Join(w, "plain-token"), uniqueSecret("plain"), 0o600)
	for l, target := range map[string]string{
		".npmrc": "dotfiles/npmrc",
		".ssh":   "dotfiles/ssh",
		".aws":   filepath.Join(outside, "aws"),
	} {
		if err := os.Symlink(target, filepath.Join(w, l)); err != nil {
			t.Fatal(err)
		}
	}
	script := `W=` + w + `
try() { l=$1; shift; if "$@" >/dev/null 2>&1; then echo "$l ok"; else echo "$l fail"; fi; }
try read_npmrc cat $W/.npmrc
try read_ssh_key cat $W/.ssh/id_ed25519
try replace_npmrc sh -c 'rm -f "$0/.npmrc" && printf "node-options=--require /tmp/evil.js\n" > "$0/.npmrc"' $W
try replace_ssh sh -c 'rm -f "$0/.ssh" && mkdir "$0/.ssh" && printf "Host *\n  ProxyCommand sh -c \"touch /tmp/pwned\"\n" > "$0/.ssh/config"' $W
try replace_aws sh -c 'rm -f "$0/.aws" && mkdir "$0/.aws" && printf "[default]\ncredential_process = /bin/sh -c \"touch /tmp/pwned\"\n" > "$0/.aws/config"' $W
try write_plain_token sh -c 'echo x > "$0/plain-token"' $W
try replace_plain_token sh -c 'rm -f "$0/plain-token" && echo x > "$0/plain-token"' $W
try control_write sh -c 'echo fine > "$0/ok.txt"' $W
echo DONE
`
	res := runShell(t, script, agentbox.WithWritableRoots(w),
		agentbox.WithDenyRead(filepath.Join(w, ".npmrc"), filepath.Join(w, ".ssh"), filepath.Join(w, ".aws"), filepath.Join(w, "plain-token")))
	if !strings.Contains(res.Stdout, "DONE") {
		t.Fatalf("the script did not finish (exit %d)", res.ExitCode)
	}
	results := map[string]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			results[f[0]] = f[1]
		}
	}
	if results["control_write"] != "ok" {
		t.Errorf("control: an ordinary file of the writable root could not be written: %q", results["control_write"])
	}
	for _, l := range []string{"read_npmrc", "read_ssh_key", "write_plain_token", "replace_plain_token"} {
		if results[l] != "fail" {
			t.Errorf("control: %s: %q (a denied file must stay unreadable and unwritable)", l, results[l])
		}
	}
	for l, name := range map[string]string{"replace_npmrc": ".npmrc", "replace_ssh": ".ssh", "replace_aws": ".aws"} {
		fi, err := os.Lstat(filepath.Join(w, name))
		if results[l] != "fail" || err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("ESCAPE: %s: the command replaced the denied link %s with its own (%q); the host's tools now read the command's configuration there", l, name, results[l])
		}
	}
	if strings.Contains(res.Stdout, secret) {
		t.Errorf("ESCAPE: the npm token was read")
	}
}

// TestDeniedPathThroughLinkedDirHeld: a deny-read path reached through a
// linked directory in a writable root (~/.kube -> dotfiles/kube, with
// ~/.kube/secrets denied) has that link held: the command can neither
// remove nor rename it to put a directory of its own, with its own
// kubeconfig (an exec credential plugin the host runs), in its place.
// What the link leads to stays writable, the denied directory masked.
func TestDeniedPathThroughLinkedDirHeld(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	secret := uniqueSecret("kube")
	writeFile(t, filepath.Join(w, "dotfiles", "kube", "secrets", "token"), secret, 0o600)
	writeFile(t, filepath.Join(w, "dotfiles", "kube", "config"), "x", 0o644)
	if err := os.Symlink("dotfiles/kube", filepath.Join(w, ".kube")); err != nil {
		t.Fatal(err)
	}
	script := `W=` + w + `
try() { l=$1; shift; if "$@" >/dev/null 2>&1; then echo "$l ok"; else echo "$l fail"; fi; }
try read_secret cat $W/.kube/secrets/token
try replace_link sh -c 'rm -f "$0/.kube" && mkdir -p "$0/.kube/secrets" && echo evil > "$0/.kube/config"' $W
try rename_link mv $W/.kube $W/kube-moved
try control_write sh -c 'echo fine > "$0/.kube/config"' $W
echo DONE
`
	res := runShell(t, script, agentbox.WithWritableRoots(w), agentbox.WithDenyRead(filepath.Join(w, ".kube", "secrets")))
	if !strings.Contains(res.Stdout, "DONE") {
		t.Fatalf("the script did not finish (exit %d)", res.ExitCode)
	}
	for l, want := range map[string]string{"read_secret": "fail", "replace_link": "fail", "rename_link": "fail", "control_write": "ok"} {
		if !strings.Contains(res.Stdout, l+" "+want) {
			t.Errorf("%s: want %s\n%s", l, want, res.Stdout)
		}
	}
	if fi, err := os.Lstat(filepath.Join(w, ".kube")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("ESCAPE: the linked directory on the way to a deny path was replaced")
	}
}
