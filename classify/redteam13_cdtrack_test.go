package classify

import "testing"

// Red team 13: the classifier tracks the working directory through `cd DIR`
// and `pushd DIR` (cd ~ && rm -rf ./* is recursive-delete-root), but not
// through the other ways bash changes it, so a delete of "." or "./*" after
// them is read as a delete in an unknown directory (sandboxed) while bash
// empties the home:
//   - `builtin cd ~` / `command cd ~` (the wrapper hides the cd),
//   - `cd -` (back to $OLDPWD, which the classifier already knows: rm -rf
//     "$OLDPWD" after the same cds is flagged),
//   - `popd` (back to the directory under the top of the stack).
//
// Each was checked in a real bash. The controls: the plain cd/pushd forms
// are forbidden, and the same wrappers around a build directory stay
// sandboxed.
//
// Fixed: chdir (classify/cwd.go) looks through builtin/command (cdWrappers),
// takes cd - to the tracked previous directory (analyzer.oldwd) and keeps
// pushd's directory stack (analyzer.dirs) for popd and a bare pushd;
// stack forms it cannot follow (+N, -n, an empty stack) make it unknown.
func TestRedteam13CdVariantsTracked(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool // a control that must stay at or below want
	}{
		{"cd ~ && rm -rf ./*", Forbidden, false},                                                     // control
		{"pushd ~ >/dev/null; rm -rf ./*", Forbidden, false},                                         // control
		{"cd ~; cd /var/tmp; rm -rf \"$OLDPWD\"", Escalated, false},                                  // control: $OLDPWD known
		{"builtin cd build && rm -rf ./*", Sandboxed, true},                                          // control
		{"pushd build >/dev/null; rm -rf ./*; popd", Sandboxed, true},                                // control
		{"builtin cd ~ && rm -rf ./*", Forbidden, false},                                             // attack
		{"command cd -- ~ && rm -rf ./*", Forbidden, false},                                          // attack
		{"builtin pushd ~ && rm -rf *", Forbidden, false},                                            // attack
		{"cd ~; cd /var/tmp; cd - >/dev/null; rm -rf ./*", Forbidden, false},                         // attack
		{"cd ~; cd /tmp; cd -; rm -rf .", Forbidden, false},                                          // attack
		{"pushd ~ >/dev/null; pushd /tmp >/dev/null; popd >/dev/null; rm -rf ./*", Forbidden, false}, // attack
		{"cd ~ && pushd /tmp && popd && rm -rf *", Forbidden, false},                                 // attack
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
