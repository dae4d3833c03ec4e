package classify

import "testing"

// After an unquoted `cd $X` with X only known at run time the working
// directory is the home when X is empty (a bare cd). Reads of credential
// stores there were judged as in the home (2b80605), writes were not:
// `cd $X; echo key >> .ssh/authorized_keys` was sandboxed, while after
// `cd ~` it is forbidden.
// Fixed: a write target relative to that directory is also judged as the
// same path in the home (tar and unzip extracting there fill the home).
func TestCdUnquotedVarWrite(t *testing.T) {
	c := Default()
	p, err := New(WithDefaultProtectedPaths())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c       *Classifier
		command string
		want    Decision
		exact   bool
	}{
		{c, `cd ~; echo x > .ssh/authorized_keys`, Forbidden, false},      // control
		{c, `cd $X; echo x > out.txt`, Sandboxed, true},                   // control
		{c, `cd $X; tar xf x.tar -C build`, Sandboxed, true},              // control
		{c, `cd "$X"; tar xf x.tar`, Sandboxed, true},                     // control: cd "" stays
		{c, `cd $X; cd src; cp x .ssh/authorized_keys`, Forbidden, false}, // a failing cd src stays where cd $X went
		{c, `cd $X && cd src && cp x .ssh/authorized_keys`, Sandboxed, true},
		{c, `cd $X; cp x .ssh/authorized_keys`, Forbidden, false},         // attack: escalated
		{c, `cd $X; echo x >> .ssh/authorized_keys`, Forbidden, false},    // attack: sandboxed
		{c, `cd ${X}; tee -a .ssh/authorized_keys < k`, Forbidden, false}, // attack: sandboxed
		{c, `cd $X; tar xf x.tar`, Escalated, false},                      // attack: sandboxed
		{c, `cd $X; unzip x.zip`, Escalated, false},                       // attack: sandboxed
		{p, `cd $X; echo >> .bashrc`, Escalated, false},                   // control: protected path
		{p, `cd $X; echo x > .bashrc`, Escalated, false},                  // control: protected path
	} {
		got := tc.c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
