package classify

import "testing"

// TestRedteam45StraceOutputPipe: strace -o '|CMD' (and the older '!CMD')
// does not write a trace file: strace hands CMD to /bin/sh and pipes the
// trace into it, so `strace -o '|rm -rf ~' true` deletes the home. The
// classifier reads strace only as a wrapper (wrappers.go: wrappers,
// "strace" lists -o among the options that take a value and skips it) and
// judges the traced program, `true`: the line is allow
// (common-safe-commands). -o's value is never looked at as a command
// (escapes.go: execOptions has no "strace" entry).
//
// Severity: high (a forbidden command is allowed).
// Found by red-team round 45 (high). Fixed: strace -o/--output
// values starting with | or ! are commands (execOptions), attached too
// (shortInCluster).
func TestRedteam45StraceOutputPipe(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"strace", "-o", "|CMD", "true"}},
		{argv: []string{"strace", "-o", "!CMD", "true"}},
		{argv: []string{"strace", "-f", "-o|CMD", "true"}},
		{argv: []string{"strace", "--output=|CMD", "true"}},
	}, Forbidden)
	// Control: a trace written to a file stays below escalated.
	if r := Default().ClassifyShell("bash", "strace -f -o trace.log true"); r.Decision > Sandboxed {
		t.Errorf("control: strace -f -o trace.log true = %s (%s), want at most sandboxed", r.Decision, r.Rule)
	}
}
