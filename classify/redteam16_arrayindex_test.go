package classify

import "testing"

// Red team 16: arrayElems (words.go) reads the index of ${A[IDX]} with
// syntax.Word.Lit(), which is "" for any index that is not a plain literal
// ($i, $((1)), $(cmd)). An empty index is then taken as element 0, so
// `A=(ls rm); "${A[$((1))]}" -rf /` is judged as `ls -rf /` (allow) while
// bash runs `rm -rf /` (checked: A=(echo printf); "${A[$((1))]}" '%s\n' hi
// prints hi). The same turns a delete of / into a delete of x (sandboxed).
// An attack line must be at least escalated (a run-time index may be
// judged dynamic); the controls: literal indices keep their verdicts.
// Fixed: an index that is not a literal, nor $((N)), $i or $((i)) with a
// number the line knows, makes the expansion a run-time value; a variable
// arithmetic assigns to ((i++), let, $((i=1)), for ((…))) is no longer
// taken as known.
func TestRedteam16ArrayDynamicIndex(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool // the verdict must be exactly want (controls)
	}{
		{`A=(ls rm); "${A[1]}" -rf /`, Forbidden, false}, // control
		{`A=(x /); rm -rf "${A[1]}"`, Forbidden, false},  // control
		{`A=(ls rm); "${A[0]}" -la`, Allow, true},        // control: harmless
		{`A=(ls rm); i=0; "${A[$i]}" -la`, Allow, true},  // control: index known
		{`A=(ls rm); "${A[$((0))]}" -la`, Allow, true},   // control: index known
		{`A=(ls rm); i=1; "${A[$((i))]}" -rf /`, Forbidden, false},
		{`A=(ls rm); "${A[$1]}" -la`, Escalated, false},
		{`A=(ls rm); i=0; ((i++)); "${A[$i]}" -rf /`, Escalated, false},
		{`A=(ls rm); i=0; let i+=1; "${A[$i]}" -rf /`, Escalated, false},
		{`A=(ls rm); i=0; : $((i=1)); "${A[$i]}" -rf /`, Escalated, false},
		{`A=(ls rm); i=0; for ((i=0;i<2;i++)); do :; done; "${A[$i]}" -rf /`, Escalated, false},
		{`A=(ls rm); "${A[$((1))]}" -rf /`, Escalated, false},   // attack: allow
		{`A=(ls rm); i=1; ${A[$i]} -rf /`, Escalated, false},    // attack: allow
		{`A=(ls sudo); "${A[$((1))]}" id`, Escalated, false},    // attack: allow
		{`A=(x /); rm -rf "${A[$((1))]}"`, Escalated, false},    // attack: sandboxed
		{`A=(x /); i=1; rm -rf "${A[$i]}"`, Escalated, false},   // attack: sandboxed
		{`A=(x ~); rm -rf "${A[$(echo 1)]}"`, Escalated, false}, // attack: sandboxed
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
