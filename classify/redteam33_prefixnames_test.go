package classify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRedteam33PrefixNames: ${!prefix@} and ${!prefix*} expand to the
// names of the set variables that start with prefix; a variable the line
// itself set is one of them, so after shadow=1, /etc/${!shadow@} is
// /etc/shadow (bash checks each premise below, printing the word). The
// classifier treats the whole ${!p@} as a run-time part, as it does an
// environment variable, and judges reads of /etc/shadow, ~/.ssh/config
// and ~/.gnupg/… "allow" (common-safe-commands), while the same line
// with the literal path escalates (credential-access). The names are
// literal on the line; only other names from the environment may be
// added. The README's limits name ${!X} of a[1] or of a nameref, not
// ${!prefix@}. Severity: medium (an allowed line reads a denied file;
// the sandbox's own read denials still apply). Fix: expand ${!p@}/${!p*}
// to the sorted names the line set that start with p (each a possible
// word, with the run-time part beside them), as for-loops and array
// literals would then see too.
// Fixed: expandParam gives ${!p@}/${!p*} the sorted names the line set
// that start with p as possible values beside the run-time part
// (addPrefixNames, maybeparam.go); a for loop takes a word's possible
// value as one of its words (loopValues).
func TestRedteam33PrefixNames(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Classify(`hosts=1; cat /etc/${!hosts@}`); got.Decision != Allow {
		t.Errorf("benign control: %s (%s), want allow", got.Decision, got.Rule)
	}
	for _, tc := range []struct{ line, word, want string }{
		{`shadow=1; cat /etc/${!shadow@}`, `/etc/${!shadow@}`, `/etc/shadow`},
		{`shadow=1; cat /etc/${!shadow*}`, `/etc/${!shadow*}`, `/etc/shadow`},
		{`shadow=1; for f in ${!shado@}; do cat /etc/$f; done`, `/etc/${!shado@}`, `/etc/shadow`},
		{`ssh=1; cat ~/.${!ss@}/config`, `/home/u/.${!ss@}/config`, `/home/u/.ssh/config`},
		{`gnupg=1; cat ~/.${!gnu@}/private-keys-v1.d/k`, `x/${!gnu@}`, `x/gnupg`},
	} {
		if bash, err := exec.LookPath("bash"); err == nil {
			pre := tc.line[:strings.Index(tc.line, ";")]
			out, _ := exec.Command(bash, "-c", pre+"; unset SSH_AUTH_SOCK SSH_CLIENT SSH_CONNECTION SSH_TTY; echo "+tc.word).Output()
			if got := strings.TrimSpace(string(out)); got != tc.want {
				t.Errorf("premise: bash gives %q for %q, want %q", got, tc.word, tc.want)
			}
		}
		if got := c.Classify(tc.line); got.Decision == Allow || got.Decision == Sandboxed {
			t.Errorf("%q: %s (rule %q), want escalated or forbidden", tc.line, got.Decision, got.Rule)
		}
	}
}
