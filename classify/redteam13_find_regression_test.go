package classify

import "testing"

// Red team 13, regression of 5807586: find's starting points now feed
// dynamic-delete-target, so an everyday clean-up that deletes only
// matching files under a quoted directory variable,
// `find "$BUILD_DIR" -name '*.o' -delete` or
// `find "$(git rev-parse --show-toplevel)" -name '*.orig' -delete`, is
// escalated (a person must approve); both were sandboxed before. The rule
// escalates "$DIR/" because an empty value makes it "/"; a quoted "$DIR"
// that is empty is `find ”`, which fails ("find: ”: No such file or
// directory") and deletes nothing, and the same clean-up written
// `cd "$BUILD_DIR" && find . -name '*.o' -delete` is sandboxed, so the
// escalation adds approvals to CI-style scripts without closing anything.
// Expected: sandboxed, as before. Held alongside (must stay escalated or
// worse): "$X/" and unquoted $X roots, where an empty value really is /
// or the working directory.
//
// Fixed: dynamic-delete-target takes find's starting points through
// findDynRoots, which drops a whole quoted run-time root ("$DIR",
// "$(cmd)") when every action is restricted by a -name/-path/-regex test
// whose pattern is not all wildcards (no -o, !, -not); "$X/", unquoted $X
// and unfiltered finds still count.
func TestRedteam13FindQuotedVarRootRegression(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"cd \"$BUILD_DIR\" && find . -name '*.o' -delete", Sandboxed, true},                  // control
		{"find \"$X/\" -delete", Escalated, false},                                            // held
		{"find / -name '*.o' -delete", Forbidden, false},                                      // held
		{"find \"$BUILD_DIR\" -name '*.o' -delete", Sandboxed, true},                          // regression
		{"find \"$(git rev-parse --show-toplevel)\" -name '*.orig' -delete", Sandboxed, true}, // regression
		{"find \"$OUT\" -type f -name '*.pyc' -delete", Sandboxed, true},                      // regression
	} {
		got := c.Classify(tc.command)
		if tc.atMost && got.Decision > tc.want {
			t.Errorf("%q: %s (rule %q), want at most %s", tc.command, got.Decision, got.Rule, tc.want)
		}
		if !tc.atMost && got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
