package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam25Classify3ArrayTransform: ${X%p}, ${X/#a/b} … are computed
// on a scalar the line set (f02867e), but not on an array element:
// transformKnown returns early when v.arr != nil, and nothing else models
// ${a[0]%p} or ${a[@]/#a/b}.
//
// The attack: `a=(~/.ssh/id_rsa.pub); cat "${a[0]%.pub}"` is allow
// (common-safe-commands) while the scalar form is escalated; bash 5.2 cats
// the private key (checked). Same for `${a[@]/#\/tmp/$HOME}` and a
// `local -a` in a function. The root delete `a=(/x); rm -rf "${a[0]%x}"`
// is only escalated (dynamic-delete-target), where `X=/x; rm -rf "${X%x}"`
// is forbidden; and the everyday `a=(x y); rm -rf "${a[0]%/}"` is escalated
// (false positive).
//
// Why it matters: a private-key read with no approval through the very
// idiom the transform model was added for, moved one step into an array.
// Severity: medium. Fix: apply transformKnown per element when the array's
// elements are known (${a[N]op}, ${a[@]op}, ${a[*]op}, $a == ${a[0]}), with
// the untransformed element as the possible value otherwise.
//
// Fixed: transformKnown (paramtransform.go) takes its input from
// transformInput: a scalar, the array elements (or positional parameters)
// the index selects, or their possible values, each transformed.
func TestRedteam25Classify3ArrayTransform(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`a=(~/.ssh/id_rsa.pub); cat "${a[0]%.pub}"`, Escalated, false},
		{`a=(~/.ssh/id_rsa.pub); cat "${a[@]%.pub}"`, Escalated, false},
		{`a=(/tmp/.ssh/id_rsa); cat "${a[@]/#\/tmp/$HOME}"`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; a=("$X"); cat "${a[0]%.pub}"`, Escalated, false},
		{`f() { local -a k=(~/.aws/credentials.bak); cat "${k[@]%.bak}"; }; f`, Escalated, false},
		{`a=(/x); rm -rf "${a[0]%x}"`, Forbidden, true},
		// False positive on an everyday command.
		{`a=(x y); rm -rf "${a[0]%/}"`, Sandboxed, true},
		// Controls.
		{`X=~/.ssh/id_rsa.pub; cat ${X%.pub}`, Escalated, true},
		{`a=(~/.ssh/id_rsa); cat "${a[0]}"`, Escalated, true},
		{`X=/x; rm -rf "${X%x}"`, Forbidden, true},
		{`a=(x y); rm -rf "${a[@]}"`, Sandboxed, true},
	})
}

// TestRedteam25Classify3CaseOps: case modification is computed for ${X,,},
// ${X^^}, ${X,}, ${X^} only. ${X,,pat}/${X^^pat} (a literal pattern) and
// bash 5.1's ${X@L}/${X@U} keep the untransformed value, which is not a
// credential path.
//
// The attack: `X=$HOME/.SSH/id_rsa; cat "${X,,[A-Z]}"` and
// `X=~/.SSH/id_rsa; cat ${X@L}` are allow; bash 5.2 cats ~/.ssh/id_rsa
// (checked). The README limit covers non-literal patterns; here the pattern
// is literal (or there is none).
//
// Severity: medium (credential read allowed). Fix: caseValue should take a
// literal pattern (lower/upper only the characters it matches) and the @L,
// @U (and @u) operators; an operator it does not compute should add the
// value as defaulted, as transformKnown does for an unknown pattern — and
// better, since case is what makes the path, judge every case variant
// risk-first.
//
// Fixed: caseValue (paramcase.go) applies ,, ^^ , ^ with a literal
// pattern matched per character, and @L @U @u; with a run-time pattern the
// lowered value (,, ,) or the value as is (^^ ^) is the possible value.
func TestRedteam25Classify3CaseOps(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`X=$HOME/.SSH/id_rsa; cat "${X,,[A-Z]}"`, Escalated, false},
		{`X=~/.SSH/id_rsa; cat ${X@L}`, Escalated, false},
		{`X=~/.SSH/ID_RSA; cat "${X@L}"`, Escalated, false},
		// Controls.
		{`X=~/.SSH/id_rsa; cat "${X,,}"`, Escalated, true},
		{`X=README.MD; cat ${X@L}`, Allow, true},
	})
}

// TestRedteam25Classify3LiteralForms: forms bash reads as literals that the
// transform code does not compute, so the untransformed (public-key) value
// is judged: an ANSI-C quoted pattern ${X%$'.pub'}, and literal numbers
// written as (-4), -0x4, -10#4 in a slice. bash 5.2 cats the private key
// for each (checked).
//
// Severity: low (close to the documented "literal pattern and literal
// numbers" limit, but each of these is a literal). Fix: trimPattern should
// accept $'…' (decode the escapes), arithLiteral should accept a
// parenthesised literal and bash's base forms (0x, 0, b#n).
//
// Fixed: trimPattern decodes $'…' (ansiC); arithLiteral reads (x) and
// bashInt's 0x1F, 017 and base#digits.
func TestRedteam25Classify3LiteralForms(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`X=~/.ssh/id_rsa.pub; cat ${X%$'.pub'}`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; cat ${X:0:(-4)}`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; cat ${X:0:-0x4}`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; cat ${X:0:-10#4}`, Escalated, false},
		// Controls.
		{`X=~/.ssh/id_rsa.pub; cat ${X%'.pub'}`, Escalated, true},
		{`X=~/.ssh/id_rsa.pub; cat ${X:0:-4}`, Escalated, true},
	})
}

// TestRedteam25Classify3SlowTransform: a 20 000-character value trimmed
// 3 000 times on one ~45 KB line (far under the 1 MiB input limit) takes
// ~2.3 s on an idle 2-core machine (each ${X%%*b} compiles a regexp and
// scans the whole value, and the results are kept). `echo $X` ×3000
// already takes ~1 s (value amplification, pre-existing), the transform
// doubles it.
//
// Severity: low (denial of service of the classifier; scales linearly with
// the line, so a 1 MiB line takes far longer). Fix: cap the total bytes of
// values built per line (treat past the cap as run-time parts) and cache
// compiled trim patterns.
//
// Fixed: patterns are compiled once per line (analyzer.compile), and past
// 4 MiB of values expanded on the line (spendValue, in transforms, known
// variables and array elements) the line is escalated and the walk stops
// (~0.1 s here; `echo $X` ×3000 15 ms).
func TestRedteam25Classify3SlowTransform(t *testing.T) {
	c := Default()
	line := "X=" + strings.Repeat("a", 20000) + "; echo " + strings.TrimSpace(strings.Repeat("${X%%*b} ", 3000))
	start := time.Now()
	got := c.Classify(line)
	// ~0.1 s idle; the bound leaves room for a loaded CI machine under
	// -race (the unbounded walk took 2.3 s idle).
	if d := time.Since(start); d > slowdown*3*time.Second {
		t.Errorf("classification took %v (decision %s), want well under 1s", d, got.Decision)
	}
	start = time.Now()
	c.Classify("X=abc; echo ${X%%*b}")
	if d := time.Since(start); d > slowdown*100*time.Millisecond {
		t.Errorf("control took %v", d)
	}
}
