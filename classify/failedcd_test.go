package classify

import "testing"

// TestFailedCd: a cd to a directory not known to exist may fail; what
// follows `;`, a newline or `||` then runs where bash was (the more
// critical of the two directories kept), what follows `&&` only where the
// cd went.
func TestFailedCd(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`cd ~; cd nosuch; grep -r x .`, Escalated},
		{"cd ~\ncd nosuch\ngrep -r x .", Escalated},
		{`cd ~; cd nosuch || grep -r x .`, Escalated},
		{`cd ~; pushd nosuch; grep -r x .`, Escalated},
		{`cd ~; ! cd nosuch && grep -r x .`, Escalated},
		{`cd ~; (cd nosuch) && grep -r x .`, Escalated},
		{`cd ~; cd nosuch | cat && grep -r x .`, Escalated},
		{`cd ~; f() { cd nosuch; }; f && grep -r x .`, Escalated},
		{`cd ~; if cd nosuch; then :; fi && grep -r x .`, Escalated},
		{`cd /; cd nosuch; rm -rf *`, Forbidden},
		{`cd ~; cd a && cd b; grep -r x .`, Escalated},

		// After && only the directory entered.
		{`cd ~; cd nosuch && grep -r x .`, Allow},
		{`cd ~ && cd project && grep -r x .`, Allow},
		{`cd ~; { cd project; } && grep -r x .`, Allow},
		{`cd ~; cd a && cd b && grep -r x .`, Allow},
		{`cd ~; cd a && grep -r x . && cd b`, Allow},
		// Directories that exist: /, the home, .., -, /tmp, /usr …
		{`cd /; cd /tmp; rm -rf *`, Sandboxed},
		{`cd ~; cd /tmp; grep -r x .`, Allow},
		{`cd /tmp/x; cd ..; rm -rf build`, Sandboxed},
		{`cd ~; cd /tmp; cd -; rm -rf .`, Forbidden},
		// From an unknown directory, a failed cd leaves it unknown.
		{`cd src; grep -r x .`, Allow},
		{`cd build; rm -rf .ssh`, Sandboxed},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}

// TestCdSure lists the cd targets taken to exist.
func TestCdSure(t *testing.T) {
	for _, tc := range []struct {
		op, dir string
		want    bool
	}{
		{"/", "/", true}, {"~", "~", true}, {"..", "/work", true}, {"-", "", true}, {".", "x", true},
		{"/tmp", "/tmp", true}, {"/usr", "/usr", true}, {"/etc", "/etc", true}, {"/var/tmp", "/var/tmp", true},
		{"/home/u", "/home/u", true}, // the home (given as u's)
		{"project", "~/project", false}, {"/opt/x", "/opt/x", false}, {"/nosuch", "/nosuch", false}, {"$X", "", false},
	} {
		if got := cdSure(tc.op, tc.dir, "/home/u"); got != tc.want {
			t.Errorf("cdSure(%q, %q): %v, want %v", tc.op, tc.dir, got, tc.want)
		}
	}
}
