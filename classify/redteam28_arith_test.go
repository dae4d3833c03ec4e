package classify

import (
	"strings"
	"testing"
	"time"
)

// rt28Judge checks that bash really runs CMD in each template (a marker
// file; the test's premise) and that the classifier forbids each line with
// rm -rf / in CMD's place.
func rt28Judge(t *testing.T, attacks []string) {
	t.Helper()
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Classify(`i=3; j=i; a=(1 2); echo $((j+a[1]))`); got.Decision != Allow {
		t.Errorf("benign control: %s (%s), want allow", got.Decision, got.Rule)
	}
	for _, tmpl := range attacks {
		bashRunsPayload(t, tmpl)
		line := strings.ReplaceAll(tmpl, "CMD", "rm -rf /")
		if got := c.Classify(line); got.Decision != Forbidden {
			t.Errorf("%q: %s (rule %q), want forbidden", line, got.Decision, got.Rule)
		}
	}
}

// TestRedteam28ArithDepth: arithText/arithVar stop following names past
// maxArithDepth (8) and silently return, so a chain of a dozen plain
// assignments i1=i0; i2=i1; … hides i0='x[$(rm -rf /)]' from $((i11)):
// the line is "allow" and bash (no such depth limit short of 1024) runs
// rm -rf /. Every value is a literal on the line (not a documented limit).
// Severity: high (an allowed line runs any command; the sandbox still
// applies). Fix: past maxArithDepth the line must be escalated (or the
// value judged as code), never dropped.
// Fixed: maxArithDepth is 64 and past it arithDeep escalates the line
// (a cycle such as x=x+1 ends quietly in arithEnter instead).
func TestRedteam28ArithDepth(t *testing.T) {
	var b strings.Builder
	b.WriteString(`i0='x[$(CMD)]'; `)
	for k := 1; k <= 11; k++ {
		b.WriteString("i" + itoa(k) + "=i" + itoa(k-1) + "; ")
	}
	b.WriteString("echo $((i11))")
	rt28Judge(t, []string{b.String()})
}

// TestRedteam28ElemWrites: writes to an array element whose subscript is
// negative, an expression, or spaced (a[-1]=, a[1+0]=, printf -v 'a[-2]',
// read 'a[ 1]', declare 'a[1]=…', mapfile -O 1) leave the classifier's
// stale element, and values a builtin reads from a literal here-string or
// printf -v %s (read i <<<, mapfile <<<, printf -v i %s) or that reach a
// target through a nameref declared without one (declare -n r; r=i) are
// not followed into arithmetic. Each line is "allow"; bash runs the
// command substitution in each (marker checked below). All values are
// literals on the line (the README's limit is run-time values).
// Severity: high (an allowed line runs rm -rf /; the sandbox still applies).
// Fix: the element key of a write must be computed as bash does
// (indexNumber for expressions/negatives, counted from the end) or the
// array made unknown, and arithmetic must follow values read from
// here-strings/printf -v and a nameref's later target.
// Fixed: elemOf/elemKey compute a constant subscript (constArith,
// subscriptExpr for a name given as a word) and elemAssigned counts a
// negative one from the end; an element the line cannot place leaves the
// array's texts as possible values (elemUnknown), which arithVar follows;
// declare 'NAME=V' assigns (declWord); a quoted here-string's text is
// exact (stream.exact) so read/mapfile keep it; printf -v models %s;
// declare -n r; r=i keeps the other variables' values as possible ones
// (clobberVarsKeep).
func TestRedteam28ElemWrites(t *testing.T) {
	rt28Judge(t, []string{
		`a=(1 2 3); a[-1]='x[$(CMD)]'; echo $((a[2]))`,
		`a=(1 2 3); a[-3]='x[$(CMD)]'; echo $((a[0]))`,
		`a=(1 2 3); a[1+0]='x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); printf -v 'a[1+0]' 'x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); printf -v 'a[-2]' 'x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); read 'a[-2]' <<< 'x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); read 'a[ 1]' <<< 'x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); declare 'a[1]=x[$(CMD)]'; echo $((a[1]))`,
		`a=(1 2 3); mapfile -O 1 -n 1 a <<< 'x[$(CMD)]'; echo $((a[1]))`,
		`read i <<< 'x[$(CMD)]'; echo $((i))`,
		`mapfile -t arr <<< 'x[$(CMD)]'; echo $((arr[0]))`,
		`printf -v i %s 'x[$(CMD)]'; echo $((i))`,
		`declare -i n; printf -v n %s 'x[$(CMD)]'`,
		`i='x[$(CMD)]'; declare -n r; r=i; echo $((r))`,
	})
}

// TestRedteam28WaitP: wait -p NAME (bash 5.1+) sets NAME, and a subscript
// in it is expanded (arithmetic for an indexed array): wait -n -p
// 'a[$(rm -rf /)]' runs rm -rf /. wait is not in varSetters, so the
// quoted subscript is never judged: "allow".
// Severity: high. Fix: treat wait -p's value as a name set (like printf
// -v), so nameText judges its subscript.
// Fixed: wait is a setsOption builtin in varSetters, its -p read through
// nameOptions/optionNames like printf -v.
func TestRedteam28WaitP(t *testing.T) {
	rt28Judge(t, []string{
		`sleep 0 & wait -n -p 'a[$(CMD)]'`,
		`i='x[$(CMD)]'; sleep 0 & wait -n -p 'a[i]'`,
	})
}

// TestRedteam28ArithRunaway: recursive arithmetic is followed with no
// step or time charge: eight variables each naming the previous one n
// times (v1='v0+v0+…') make $((v8)) cost n^8 arithText calls. With n=20
// the classifier ran for over 4 minutes (killed) on a 546-byte line; this
// test uses n=11 (~4 s without -race) so that it ends, still past the
// one-second bound. Severity: medium (a hung classifier: denial of
// service of the process judging lines). Fix: charge each value
// followed to the step budget / check the deadline in arithText, or
// follow each (name, key) once per arithmetic expression.
// Fixed: arithText charges a step per value followed (charge also reads
// the deadline), so the line is escalated at maxSteps in milliseconds.
func TestRedteam28ArithRunaway(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	parts := []string{"v0=1"}
	for k := 1; k <= 8; k++ {
		parts = append(parts, "v"+itoa(k)+"='"+strings.Repeat("v"+itoa(k-1)+"+", 10)+"v"+itoa(k-1)+"'")
	}
	line := strings.Join(parts, "; ") + "; echo $((v8))"
	control := `v0=1; v1='v0+v0'; echo $((v1))`
	if got := c.Classify(control); got.Decision != Allow {
		t.Errorf("control: %s (%s), want allow", got.Decision, got.Rule)
	}
	done := make(chan Decision, 1)
	start := time.Now()
	go func() { done <- c.Classify(line).Decision }()
	select {
	case d := <-done:
		t.Logf("classified %s in %v", d, time.Since(start))
		if time.Since(start) > slowdown*2*time.Second { // bounds are checked without the race detector
			t.Errorf("classify took %v, want about 1 s at most", time.Since(start))
		}
	case <-time.After(120 * time.Second):
		t.Errorf("classify still running after 120 s on a %d-byte line (runaway)", len(line))
	}
}
