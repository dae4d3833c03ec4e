package classify

import "testing"

// find "$DIR" -name '*.o' -exec rm -rf {} + deletes only what find matched
// under $DIR, as -delete does: a whole quoted run-time root is no delete
// target of {} when a name test before the -exec restricts it. An unquoted
// $DIR can inject find operators and an empty one is the working
// directory, so it stays escalated, as do "$DIR/", an unfiltered find, a
// name test after the -exec or inside another -exec's command, and a {}
// that is not the whole operand.
func TestFindExecQuotedRootFiltered(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`find "$DIR" -name '*.o' -delete`, Sandboxed},      // control
		{`find . -name '*.o' -exec rm -rf {} +`, Sandboxed}, // control
		{`find / -name '*.o' -exec rm -rf {} +`, Forbidden}, // control
		{`find "$DIR" -name '*.o' -exec rm -rf {} +`, Sandboxed},
		{`find "$DIR" -name '*.o' -execdir rm -rf {} +`, Sandboxed},
		{`find "$DIR" -type d -name __pycache__ -exec rm -rf {} \;`, Sandboxed},
		{`find "$(git rev-parse --show-toplevel)" -name '*.orig' -exec rm -rf {} +`, Sandboxed},
		{`find $DIR -name '*.o' -exec rm -rf {} +`, Escalated},
		{`find $DIR -name '*.o' -execdir rm -rf {} +`, Escalated},
		{`find "$DIR/" -name '*.o' -exec rm -rf {} +`, Escalated},
		{`find "$DIR" -exec rm -rf {} +`, Escalated},
		{`find "$DIR" -name '*' -exec rm -rf {} +`, Escalated},
		{`find "$DIR" -name x -o -exec rm -rf {} +`, Escalated},
		{`find "$DIR" -exec rm -rf {} + -name x`, Escalated},
		{`find "$DIR" -exec true -name x \; -exec rm -rf {} +`, Escalated},
		{`find "$DIR" -exec true -name x \; -delete`, Escalated},
		{`find "$DIR" -name '*.o' -exec rm -rf {}/.. +`, Escalated},
		{`find "$DIR" -name '*.o' -exec rm -rf "$Y" {} +`, Escalated},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
