package classify

import "testing"

// TestRedteam45ScriptCommandAfterFile: util-linux script parses its
// options with getopt_long in permuting mode, so -c/--command may follow
// the log-file operand (`script -q /dev/null -c CMD`), and when -c is
// given twice the last one wins. The classifier's wrapper model stops at
// the first operand (wrappers.go: wrapSpec.unwrap breaks at the first
// word not starting with '-'; "script" is optOnly, so only a -c seen
// before that counts), so:
//
//   - `script -q /dev/null -c 'rm -rf ~'` is judged sandboxed (the
//     command is never seen);
//   - `script -c true /dev/null -c 'rm -rf ~'` is judged allow: only the
//     first, harmless -c is judged, and the one script runs is ignored.
//
// Severity: high (a forbidden command allowed).
// Found by red-team round 45 (high). Fixed: every -c/--command of
// script is judged wherever it stands (execOptions).
func TestRedteam45ScriptCommandAfterFile(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"script", "-q", "/dev/null", "-c", "CMD"}},
		{argv: []string{"script", "/dev/null", "--command", "CMD"}},
		{argv: []string{"script", "-q", "-c", "true", "/dev/null", "-c", "CMD"}},
		{argv: []string{"script", "-qc", "true", "-c", "CMD", "/dev/null"}},
	}, Forbidden)
	// Control: recording a build stays below escalated.
	if r := Default().ClassifyShell("bash", "script -q -c 'make test' build.log"); r.Decision > Sandboxed {
		t.Errorf("control: script -q -c 'make test' build.log = %s (%s), want at most sandboxed", r.Decision, r.Rule)
	}
}
