package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam30GetoptsOptarg: getopts stores an option's argument in
// OPTARG, and the classifier takes OPTARG as a value known only at run
// time, whatever the arguments on the line are. With the argument a
// literal on the same line (getopts a: o -a 'x[$(rm -rf /)]', or set --
// before a bare getopts), arithmetic on OPTARG ($((OPTARG)), ${a[OPTARG]},
// [[ OPTARG -eq 0 ]], let, declare -i) evaluates x[$(rm -rf /)] and bash
// runs the substitution, yet each line is "allow"
// (common-safe-commands). The value is a literal on the line, not a
// file's or program's output, so the README's run-time limit does not
// cover it (same class as TestRedteam29PrintfFormats). Severity: high (an
// allowed line runs rm -rf /; the sandbox still applies). Fix: model
// getopts as a builtin write (setsSecond's name gets the option letter,
// OPTARG each option-argument the optstring allows, taken from the
// literal words or the positional parameters the line set) as a possible
// value, or escalate arithmetic on OPTARG when getopts ran on literal
// words holding $ or a backquote.
// Fixed: getopts gives OPTARG the words after its name (or the positional
// parameters the line set) as texts arithmetic follows (getoptsArg,
// varVal.maybe in maybevals.go).
func TestRedteam30GetoptsOptarg(t *testing.T) {
	rt28Judge(t, []string{
		`getopts a: o -a 'x[$(CMD)]'; echo $((OPTARG))`,
		`set -- -a 'x[$(CMD)]'; getopts a: o; echo $((OPTARG))`,
		`getopts a: o -a 'x[$(CMD)]'; a=(1); echo ${a[OPTARG]}`,
		`getopts a: o -a 'x[$(CMD)]'; [[ OPTARG -eq 0 ]]`,
		`getopts a: o -a 'x[$(CMD)]'; let OPTARG`,
		`getopts a: o -a 'x[$(CMD)]'; declare -i j=OPTARG`,
	})
}

// TestRedteam30PrintfPrecision: for a printf -v format other than plain
// %s, printfValue keeps printfStream's output "with every flag, width and
// precision ignored" as the possible value. Ignoring a precision is not a
// superset of what bash stores: printf -v i '%.1s' 'x_' '[_' '$_' '(_' …
// stores x[$(rm -rf /)] (one character of each argument), while the
// classifier's possible value is x_[_$_(_r_m_…, which holds no
// substitution, so $((i)) is "allow" and bash runs rm -rf /. Every value
// is a literal on the line. Severity: high (an allowed line runs any
// command; the sandbox still applies). Fix: printfStream must apply
// precisions (%.Ns keeps N bytes, %.*s takes its count from the
// arguments) when computing the possible value, or printf -v with any
// precision must make the variable's arithmetic use escalate.
// Fixed: printfFormat (printfformat.go) applies widths and precisions
// exactly, so printf -v stores the exact x[$(rm -rf /)] and $((i)) judges it.
func TestRedteam30PrintfPrecision(t *testing.T) {
	mk := func(cmd string) string {
		var b strings.Builder
		b.WriteString(`printf -v i '%.1s'`)
		for _, ch := range "x[$(" + cmd + ")]" {
			b.WriteString(" '" + string(ch) + "_'")
		}
		b.WriteString("; echo $((i))")
		return b.String()
	}
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	control := `printf -v i '%.1s' 3_ 4_; echo $((i+1))`
	if got := c.Classify(control); got.Decision != Allow {
		t.Errorf("benign control %q: %s (%s), want allow", control, got.Decision, got.Rule)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		mark := filepath.Join(t.TempDir(), "ran")
		_ = exec.Command(bash, "-c", mk("touch "+mark)).Run()
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("bash did not run the substitution (test premise)")
		}
	}
	line := mk("rm -rf /")
	if got := c.Classify(line); got.Decision != Forbidden {
		t.Errorf("%q: %s (rule %q), want forbidden", line, got.Decision, got.Rule)
	}
}

// TestRedteam30PrintfFoldPrecision: $(printf …) folding (printfStream)
// ignores precisions too, and unlike printf -v it treats the folded text
// as the exact output. printf '%.0s%s' 'echo ' 'rm -rf /' prints rm -rf /
// (%.0s prints nothing of its argument), but the classifier folds it to
// "echo rm -rf /": $(printf '%.0s%s' 'echo ' 'rm -rf /') as a command,
// and the same through a variable, are "allow" (common-safe-commands),
// and eval/bash -c of it are only "sandboxed"; bash runs rm -rf / in
// each (marker checked by rt28Judge). Every word is a literal on the
// line. Severity: high (an allowed line runs rm -rf /; the sandbox still
// applies). Fix: printfStream must apply precisions (%.Ns keeps N bytes,
// %.*s takes its count from the arguments, %.0s prints nothing), or
// refuse to fold (run-time part: eval-exec) any format it does not
// compute exactly.
// Fixed: printfStream folds through printfFormat, which applies
// precisions exactly and leaves any output it does not model unfolded
// (a run-time stream, trUnknown), so the fold is rm -rf /.
func TestRedteam30PrintfFoldPrecision(t *testing.T) {
	rt28Judge(t, []string{
		`$(printf '%.0s%s' 'echo ' 'CMD')`,
		`x=$(printf '%.0s%s' 'echo ' 'CMD'); $x`,
		`eval "$(printf '%.0s%s' 'echo ' 'CMD')"`,
		`bash -c "$(printf '%.0s%s' 'echo ' 'CMD')"`,
	})
}

// TestRedteam30ImplicitVarsLiteral: BASH_REMATCH (set by [[ =~ ]]) and
// $_ (the last word of the previous command) are always taken as run-time
// values (implicitvars.go), even when the text they get is a literal on
// the same line: [[ 'x[$(rm -rf /)]' =~ .* ]]; echo $((BASH_REMATCH)) and
// : 'x[$(rm -rf /)]'; echo $((_)) are "allow", and bash evaluates the
// subscript and runs rm -rf /. The README's "values known only at run
// time" limit names file and program output (x=$(cat f)), not a literal
// the line itself hands to a builtin; this is the getopts gap's twin.
// Severity: medium (the limit's wording could be read to cover it; the
// consequence is the same as the high findings). Fix: arithmetic on
// BASH_REMATCH/$_ must follow the literal texts the line could have put
// there (the =~ left operand, the previous command's last word) as
// possible values, or escalate when such text holds $ or a backquote.
// Fixed: [[ =~ ]] gives BASH_REMATCH the left sides the line knows and
// every command gives $_ its last word, as texts arithmetic follows
// (reMatch, lastWord, varVal.maybe in maybevals.go).
func TestRedteam30ImplicitVarsLiteral(t *testing.T) {
	rt28Judge(t, []string{
		`[[ 'x[$(CMD)]' =~ .* ]]; echo $((BASH_REMATCH))`,
		`[[ 'x[$(CMD)]' =~ (.*) ]]; echo $((BASH_REMATCH[1]))`,
		`: 'x[$(CMD)]'; echo $((_))`,
		`: 'x[$(CMD)]'; [[ _ -eq 1 ]]`,
	})
}

// TestRedteam30NamerefDropped: once a nameref's attribute is removed
// (declare +n r, typeset +n r, unset -n r), r is a plain variable: a
// later r='x[$(rm -rf /)]' sets r itself. Word expansion models this
// ("$r" is r's own value: rm -rf "$r" stays forbidden), but arithmetic
// still follows r as a nameref to its old target: i=1; declare -n r=i;
// declare +n r; r='x[$(rm -rf /)]'; i=2; echo $((r)) is "allow", and bash
// evaluates r's own text and runs rm -rf /. Every value is a literal on
// the line. Severity: high (an allowed line runs rm -rf /; the sandbox
// still applies). Fix: arithVar (and [[ -eq ]], subscripts, let) must
// resolve namerefs with the same state word expansion uses, dropping the
// link on +n / unset -n, or follow both the old target and r's own value.
// Fixed: declare/typeset/local +n and unset -n drop the nameref (dropRef,
// refdrop.go), so assignments, word expansion and arithmetic use r itself.
func TestRedteam30NamerefDropped(t *testing.T) {
	rt28Judge(t, []string{
		`i=1; declare -n r=i; declare +n r; r='x[$(CMD)]'; i=2; echo $((r))`,
		`i=1; declare -n r=i; typeset +n r; r='x[$(CMD)]'; i=2; echo $((r))`,
		`i=1; declare -n r=i; unset -n r; r='x[$(CMD)]'; i=2; echo $((r))`,
	})
}

// TestRedteam30PrintfBOctal: printf's %b takes octal as \0NNN (up to
// three digits after the 0: '\0057' is /, '\0044' is $), while the
// classifier decodes %b's argument with ansiC ($'…' rules: \NNN, so
// '\0057' becomes \005 then 7). printf -v i %b 'x[\0044(rm -rf /)]';
// echo $((i)) is "allow" and bash runs rm -rf /; rm -rf "$(printf %b
// '\0057')" (bash: rm -rf /) is only "sandboxed", as is it through a
// variable. Every value is a literal on the line. Severity: high (an
// allowed line runs rm -rf /). Fix: decode %b arguments with printf's
// own escape rules (\0NNN, \c ends the output, \NNN without a leading 0
// also accepted), not ansiC's, in printfStream and printfValue.
// Fixed: printfFormat decodes %b with bash's bexpand/tescape rules
// (\0NNN, \c stops all output, \' kept) and FORMAT with its own.
func TestRedteam30PrintfBOctal(t *testing.T) {
	rt28Judge(t, []string{
		`printf -v i %b 'x[\0044(CMD)]'; echo $((i))`,
		`i=$(printf %b 'x[\0044(CMD)]'); echo $((i))`,
	})
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		dir := t.TempDir()
		_ = exec.Command(bash, "-c", `touch "$(printf %b '\0057')`+dir[1:]+`/ran"`).Run()
		if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
			t.Errorf("bash did not decode \\0057 as / (test premise)")
		}
	}
	for _, line := range []string{
		`rm -rf "$(printf %b '\0057')"`,
		`x=$(printf %b '\0057'); rm -rf "$x"`,
	} {
		if got := c.Classify(line); got.Decision != Forbidden {
			t.Errorf("%q: %s (rule %q), want forbidden", line, got.Decision, got.Rule)
		}
	}
}

// TestRedteam30JoinedArith: after a branch or a loop, joinVar keeps the
// text of a value that may differ between paths only when it is not a
// "relative word"; x[$(rm -rf /)] is one (no leading / or ~), so
// [ -d / ] && i='x[$(rm -rf /)]'; echo $((i)) and the same assignment in
// a for/while/for((;;)) body leave i a bare run-time value (item: true)
// with no possible text, and arithmetic on it is "allow"; bash runs
// rm -rf /. The text is a literal on the line. The README does say that
// a value differing between paths is a run-time value and that
// arithmetic on run-time values is not judged, so this may be argued to
// be a documented limit, but the same README (and the round-29 fixes)
// has arithmetic follow possible values (printf -v, piped read, element
// writes), and a relative word here is dropped rather than kept as one.
// Severity: medium. Fix: joinVar must keep a relative word's text as a
// possible value too (dflt, or a list of candidate texts) for arithmetic,
// or arithmetic on a joined value whose candidates hold $ or a backquote
// must escalate.
// Fixed: joinVar keeps the texts either path gave (varVal.maybe, see
// maybevals.go), which arithmetic follows; word expansion is unchanged.
func TestRedteam30JoinedArith(t *testing.T) {
	rt28Judge(t, []string{
		`[ -d / ] && i='x[$(CMD)]'; echo $((i))`,
		`for k in 1; do i='x[$(CMD)]'; done; echo $((i))`,
		`for ((k=0; k<1; k++)); do i='x[$(CMD)]'; done; a=(1); echo ${a[i]}`,
		`k=0; while [ $k -lt 1 ]; do i='x[$(CMD)]'; k=1; done; echo $((i))`,
	})
}
