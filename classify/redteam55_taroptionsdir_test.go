package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam55TarOptionsDir: GNU tar puts the words of TAR_OPTIONS before
// its arguments, so a -C (--directory) given there moves tar into another
// directory before it reads or writes a member:
//
//	TAR_OPTIONS="-C $HOME" tar cf out.tar .ssh          sandboxed  (archives ~/.ssh/id_rsa)
//	TAR_OPTIONS="-C $HOME/.ssh" tar xf keys.tar         sandboxed  (plants ~/.ssh/authorized_keys)
//	TAR_OPTIONS="--directory=$HOME" tar xf home.tar     sandboxed  (fills the home wholesale)
//
// while the same options on the command line are judged: `tar -C "$HOME"
// -cf out.tar .ssh` is credential-access (escalated), `tar -C
// "$HOME/.ssh" -xf keys.tar` is output-redirect-system (forbidden), `tar
// xf home.tar -C ~` is home-overwrite (escalated).
//
// Why: envconfig.go (execOptionArgs) adds the TAR_OPTIONS words only to
// the arguments runExecOptions (escapes.go) reads for the commands tar runs
// (-I, --to-command, --checkpoint-action); the rules that resolve tar's
// member paths and its extraction directory (credential reads, writes to
// ~/.ssh and system directories, home-overwrite) read u.args, so a -C from
// TAR_OPTIONS is never seen and the members are taken as relative to the
// working directory.
//
// The premise runs each line with real GNU tar in a fake home and checks
// the archive holds the key, and that the extracted file landed in
// ~/.ssh.
//
// Severity: high (a write to ~/.ssh the policy forbids, and a credential
// read, judged sandboxed).
// Found by red-team round 55. Fixed: the words of a program's options variables are its
// arguments for every rule (envconfig.go: optionEnvArgs).
func TestRedteam55TarOptionsDir(t *testing.T) {
	if rtHave(t, "bash", "tar") {
		home, work := rt55aHome(t)
		out := rt55aRun(t, home, work, `TAR_OPTIONS="-C $HOME" tar cf out.tar .ssh`)
		b, err := os.ReadFile(filepath.Join(work, "out.tar"))
		if err != nil || !strings.Contains(string(b), rt55aSecret) {
			t.Fatalf("premise: TAR_OPTIONS=-C did not archive ~/.ssh/id_rsa (err %v, output %q)", err, out)
		}
		out = rt55aRun(t, home, work, `printf 'ssh-ed25519 RT55A-PLANTED\n' > authorized_keys && tar cf keys.tar authorized_keys && rm authorized_keys && TAR_OPTIONS="-C $HOME/.ssh" tar xf keys.tar`)
		if b, err := os.ReadFile(filepath.Join(home, ".ssh", "authorized_keys")); err != nil || !strings.Contains(string(b), "RT55A-PLANTED") {
			t.Fatalf("premise: TAR_OPTIONS=-C did not extract into ~/.ssh (err %v, output %q)", err, out)
		}
	}
	// References: the same options on the command line.
	rtAtLeast(t, []string{"bash", "sh"}, `tar -C "$HOME" -cf out.tar .ssh`, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `tar -C "$HOME/.ssh" -xf keys.tar`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `tar xf home.tar -C ~`, Escalated)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, `TAR_OPTIONS="-C $HOME" tar cf out.tar .ssh`, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `export TAR_OPTIONS="--directory=$HOME"; tar czf /tmp/o.tgz .ssh`, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `TAR_OPTIONS="-C $HOME/.ssh" tar xf keys.tar`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `TAR_OPTIONS=-C\ /etc tar xf x.tar`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `TAR_OPTIONS="--directory=$HOME" tar xf home.tar`, Escalated)
	// Controls: everyday uses of TAR_OPTIONS stay below escalated.
	rtBelow(t, `TAR_OPTIONS=--no-same-owner tar xf x.tar`, Escalated)
	rtBelow(t, `TAR_OPTIONS="-C build" tar xf x.tar`, Escalated)
	rtBelow(t, `TAR_OPTIONS=--warning=no-unknown-keyword tar czf out.tgz src`, Escalated)
}
