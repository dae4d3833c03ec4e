package classify

import "testing"

// TestRedteam49MagicEnv: file(1) loads its magic database from the file
// named by $MAGIC and reports each line it cannot parse with the line's
// first field quoted ("offset `LINE' invalid"): a private key's lines are
// single base64 words, printed whole.
//
//	MAGIC=$HOME/.ssh/id_rsa file /dev/null
//
// prints ~/.ssh/id_rsa line by line and is allow (common-safe-commands),
// where `file -m ~/.ssh/id_rsa /dev/null` is credential-access.
// matchCredentialAccess (rules_net.go) checks arguments and redirections,
// never the value of an assignment, and riskyEnv (rules_exec.go) does not
// know MAGIC.
//
// Severity: high (a credential read judged allow).
// Found by red-team round 49 (high). Fixed: a credential store named by
// MAGIC (or git's configuration variables) is credential access
// (unit.envReads).
func TestRedteam49MagicEnv(t *testing.T) {
	line := `MAGIC=$HOME/.ssh/id_rsa file /dev/null`
	if rtHave(t, "bash", "file") {
		home, work := rt49bHome(t)
		if out := rt49bRun(t, "bash", home, work, line); !rt49bLeaks(out) {
			t.Fatalf("premise: %q did not print the key (output %q)", line, out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `file -m ~/.ssh/id_rsa /dev/null`, Escalated) // control
	rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `export MAGIC=~/.ssh/id_rsa; file README`, Escalated)
	rtBelow(t, `file README`, Escalated)
}
