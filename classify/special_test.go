package classify

import "testing"

// TestSpecialAssignsPosixMode: a special builtin's prefix assignment is
// kept where bash's posix mode is surely on, taken as a run-time value
// where it may be, and dropped where it is off, so that keeping it never
// makes a line look safer than the shell runs it: with X dropped,
// rm -rf "${X:-~}" removes the home.
func TestSpecialAssignsPosixMode(t *testing.T) {
	const tail = `X=/tmp/a :; rm -rf "${X:-~}"`
	tests := []struct {
		shell, line string
		want        Decision
	}{
		{"bash", tail, Forbidden},                                               // off: X dropped
		{"bash", "set -o posix; " + tail, Sandboxed},                            // on: X kept
		{"bash", "set -o posix; set +o posix; " + tail, Forbidden},              // off again
		{"bash", "if [ -n \"$A\" ]; then set -o posix; fi; " + tail, Escalated}, // maybe
		{"bash", "set -o posix; bash -c '" + tail + "'", Escalated},             // a child may have POSIXLY_CORRECT
		{"bash", "bash --posix -c '" + tail + "'", Sandboxed},
		{"dash", tail, Forbidden}, // the bash reading drops X
	}
	for _, tt := range tests {
		if got := Default().ClassifyShell(tt.shell, tt.line); got.Decision != tt.want {
			t.Errorf("ClassifyShell(%s, %q) = %v (%s), want %v", tt.shell, tt.line, got.Decision, got.Rule, tt.want)
		}
	}
}
