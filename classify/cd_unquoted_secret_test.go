package classify

import "testing"

// After an unquoted `cd $X` with X only known at run time the working
// directory is unknown, and the home when X is empty (a bare cd): a
// relative path to a credential store may be the home's, as after the
// quoted `cd "$X"` or `cd ~`. Before, only the secret file names
// (id_rsa) counted there, as below a named subdirectory (cd src). A cd
// that may fail after it (cd $X; cd src) may leave the shell there.
func TestCdUnquotedVarSecretRead(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`cd "$X"; cat .aws/credentials`, Escalated},       // control
		{`cd ~; cat .aws/credentials`, Escalated},          // control
		{`cd $X; cat .ssh/id_rsa`, Escalated},              // control
		{`cd $X; cat README.md`, Allow},                    // control
		{`cd $X; cat .docker/Dockerfile`, Allow},           // control
		{`cd src; cat .aws/credentials`, Allow},            // control
		{`cd $X && cd src && cat .aws/credentials`, Allow}, // control: below it
		{`cd $X; cd src; cat .aws/credentials`, Escalated}, // cd src may fail and stay in the home
		{`cd $X; cd src; cat ../README.md`, Allow},         // control
		{`cd $X; cat .aws/credentials`, Escalated},
		{`cd $X && cat .aws/credentials`, Escalated},
		{`cd $X; cat < .aws/credentials`, Escalated},
		{`cd $X; cat .docker/config.json`, Escalated},
		{`cd $X; cat .config/gh/hosts.yml`, Escalated},
		{`pushd $X; cat .aws/credentials`, Escalated},
		{`cd $X; cd src/..; cat .aws/credentials`, Escalated},
		{`cd $X; cd src; cat ../.aws/credentials`, Escalated},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
