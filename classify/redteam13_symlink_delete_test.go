package classify

import "testing"

// Red team 13: `rm -rf LINK/` with a trailing slash follows the symbolic
// link and deletes everything in the directory it points to (checked with
// GNU rm: the target directory is emptied, the link stays). The classifier
// does not follow a link created earlier on the same line, so
// `ln -s ~ x && rm -rf x/` (and a link to /proc/self/cwd, /, /home) empties
// the home as a sandboxed command. The classifier already follows scripts
// written earlier on the line and resolves /proc/self/cwd; a link made on
// the line is the same kind of alias. The controls: the target written out
// is forbidden, and a link into the project stays sandboxed.
//
// Fixed: the analyzer records ln -s TARGET NAME with literal words
// (analyzer.links, classify/aliases.go) and units carry the links made
// before them; u.resolve follows a link met before the last component
// (x/, x/y) to its target (followLinks) before resolving against the
// tracked directory. A path naming the link itself (rm -rf x) is the link.
func TestRedteam13SymlinkMadeOnLineThenDeleted(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"rm -rf ~/", Forbidden, false},                               // control
		{"ln -s build/out x && rm -rf x/", Sandboxed, true},           // control
		{"ln -s ~ x && rm -rf x/", Forbidden, false},                  // attack
		{"ln -sfn ~ h; rm -rf h/", Forbidden, false},                  // attack
		{"ln -s / r && rm -rf r/home/", Forbidden, false},             // attack
		{"ln -s /proc/self/cwd x; cd ~; rm -rf x/", Forbidden, false}, // attack
	} {
		got := c.Classify(tc.command)
		if tc.atMost && got.Decision > tc.want {
			t.Errorf("control %q: %s (rule %q), want at most %s", tc.command, got.Decision, got.Rule, tc.want)
		}
		if !tc.atMost && got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
