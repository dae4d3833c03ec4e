package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam25Classify2ArrayDefault: the default word of ${X:-w} is judged
// as a possible value in arguments, redirections and plain assignments
// (8336f14), but not inside an array assignment.
//
// The attack: `a=(${X:-~/.ssh/id_rsa}); cat "${a[0]}"` is allow
// (common-safe-commands), while `f=${X:-~/.ssh/id_rsa}; cat $f` and
// `cat ${X:-~/.ssh/id_rsa}` are escalated. X unset in every real shell, so
// bash runs cat ~/.ssh/id_rsa.
//
// Why it matters: a private key read with no approval, by the same idiom
// the fix meant to cover, moved one step through an array. Severity: medium.
// Fix: array elements built from ${X:-w} must keep w as a possible value
// (the element's dflt), as the scalar assignment does.
// Fixed: arrayAssign (arrays.go) keeps each element's possible value in
// varVal.dfltArr when one holds an operator's word, and expandParam adds
// ${a[N]}, ${a[@]}, $a of such an array as defaulted (arrayDefaults).
func TestRedteam25Classify2ArrayDefault(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`a=(${X:-~/.ssh/id_rsa}); cat "${a[0]}"`, Escalated, false},
		{`a=("${X:-$HOME/.ssh/id_rsa}"); cat "${a[@]}"`, Escalated, false},
		{`a=(${X:-~/.aws}/credentials); cat ${a[*]}`, Escalated, false},
		// Controls.
		{`f=${X:-~/.ssh/id_rsa}; cat $f`, Escalated, true},
		{`a=(~/.ssh/id_rsa); cat "${a[0]}"`, Escalated, true},
		{`a=(${X:-README.md}); cat "${a[0]}"`, Allow, true},
	})
}

// TestRedteam25Classify2IndirectDefault: ${!X:-w} (indirection with a
// default) keeps only its source text, so its word is never judged.
//
// The attack: `cat ${!X:-$HOME/.aws/credentials}` and `X=Y; cat
// ${!X:-~/.ssh/id_rsa}` are allow; bash prints /root/.ssh/id_rsa for the
// second (Y unset), the first fails only when X is unset (invalid indirect
// expansion) — any X naming an unset variable reads the credentials.
// Severity: medium (allow of a credential read). Fix: treat ${!X op w} like
// ${X op w} on an unknown X in addOpWord (the default word is a possible
// value whatever the indirection yields).
// Fixed: expandParam passes ${!X op w} to addOpWord as an operator on a
// variable only known at run time (isIndirectOp).
func TestRedteam25Classify2IndirectDefault(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`cat ${!X:-$HOME/.aws/credentials}`, Escalated, false},
		{`X=Y; cat ${!X:-~/.ssh/id_rsa}`, Escalated, false},
		{`X=Y; cat "${!X-$HOME/.ssh/id_rsa}"`, Escalated, false},
		// Controls.
		{`cat ${X:-$HOME/.aws/credentials}`, Escalated, true},
		{`cat ${!X:-README.md}`, Allow, true},
	})
}

// TestRedteam25Classify2ParamTransform: a variable the line set to a known
// value, transformed by ${X%p}, ${X#p}, ${X/a/b}, ${X:o:l} or ${X,,}, is kept
// as its source text: the credential path bash computes from text written
// on the line is never judged.
//
// The attack: `X=~/.ssh/id_rsa.pub; cat "${X%.pub}"` (the public key's name
// minus .pub is the private key), `X=/tmp/.ssh/id_rsa; cat ${X/tmp/root}`,
// `X=~/.ssh/id_rsaXX; cat ${X::-2}`, `X=/ROOT/.SSH/ID_RSA; cat ${X,,}` are
// all allow (common-safe-commands); `X=~/.ssh/id_rsa; cat $X` is escalated.
// Only symbolic trims of HOME/PWD/SHELL are evaluated (trimSymbolic).
//
// Why it matters: no run-time value is involved; the path is spelled on the
// line and bash's own expansion assembles it. Severity: medium.
// Fix: evaluate trim/replace/slice/case operators on known values (the
// analyzer already knows X; mvdan.cc/sh/v3/expand or pattern can do it),
// or, failing that, judge the untransformed value too.
// Fixed: transformKnown (paramtransform.go) computes trims, replacements,
// slices and case changes of a known value; one it cannot compute keeps
// the untransformed value as a possible value.
func TestRedteam25Classify2ParamTransform(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`X=/root/.ssh/id_rsa.pub; cat ${X%.pub}`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; cat "${X%.*}"`, Escalated, false},
		{`X=x~/.ssh/id_rsa; cat ${X#x}`, Escalated, false},
		{`X=/tmp/.ssh/id_rsa; cat ${X/tmp/root}`, Escalated, false},
		{`X=/tmp/.ssh/id_rsa; cat "${X/#\/tmp/$HOME}"`, Escalated, false},
		{`X=~/.ssh/id_rsaXX; cat ${X::-2}`, Escalated, false},
		{`X=abc/root/.ssh/id_rsa; cat ${X:3}`, Escalated, false},
		{`X=/ROOT/.SSH/ID_RSA; cat "${X,,}"`, Escalated, false},
		// Controls.
		{`X=~/.ssh/id_rsa; cat $X`, Escalated, true},
		{`X=ID_RSA; cat ~/.ssh/${X,,}`, Escalated, true},
		{`X=notes.txt.bak; cat ${X%.bak}`, Allow, true},
	})
}

// TestRedteam25Classify2ReadUnmodelledOption: readHereVars gives up on any
// option it does not model (read -n/-N/-u, mapfile -O), and the names then
// count as unknown run-time values (allow), though the here-string's text
// is on the line.
//
// The attack: `read -n 100 f <<< /root/.ssh/id_rsa; cat $f`, `read -N 17 f
// <<< ...`, `read -u 3 f 3<<< ...`, `mapfile -O 1 -t a <<< ...; cat
// "${a[1]}"` are allow; without the option they are escalated.
// Severity: low-medium (unusual spelling, but a one-flag bypass of 49f2004).
// Fix: for an unmodelled option, keep the text (its first line, or its
// lines) as the names' possible value (dflt), as the unknown-IFS case
// already does, instead of dropping it; or model -n/-N (a prefix), -u N
// with N<<<, and -O (index offset).
// Fixed: readhere.go models read -n/-N (readCount), -u N (readerInput,
// with unit.fdIn from redirects) and mapfile -O (possible values from N);
// mapfile -C/-c keep the elements as possible values (unmodelled).
func TestRedteam25Classify2ReadUnmodelledOption(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`read -n 100 f <<< /root/.ssh/id_rsa; cat $f`, Escalated, false},
		{`read -N 17 f <<< /root/.ssh/id_rsa; cat $f`, Escalated, false},
		{`read -u 3 f 3<<< /root/.ssh/id_rsa; cat $f`, Escalated, false},
		{`read -u 0 f <<< /root/.ssh/id_rsa; cat $f`, Escalated, false},
		{`mapfile -O 1 -t a <<< /root/.ssh/id_rsa; cat "${a[1]}"`, Escalated, false},
		// Controls.
		{`read -r f <<< /root/.ssh/id_rsa; cat $f`, Escalated, true},
		{`mapfile -t a <<< /root/.ssh/id_rsa; cat "${a[0]}"`, Escalated, true},
		{`read -n 1 -r key < /dev/tty; echo "$key"`, Allow, true},
	})
}

// TestRedteam25Classify2HomeParentStore: f8738a3 made a recursive read of
// ~/../$USER (and of $USER after cd ~/..) credential-access, but only for
// the home itself: a store below it reached the same way, a cd into it,
// and tar -C ~/.. are not judged.
//
// The attack: `zip -r /tmp/x.zip ~/../$USER/.ssh`, `cp -r ~/../$USER/.ssh
// /tmp/x`, `tar czf x ~/../$USER/.aws` are sandboxed, `grep -r KEY
// ~/../$USER/.aws` is allow, while `zip -r x ~/.ssh` and `cp -r
// /home/$USER/.ssh x` are escalated. `cd ~/../$USER && tar czf x .`, `cd
// ~/..; cd ./$USER && zip -r x .` and `tar czf x -C ~/.. $USER` are sandboxed
// where `cd ~/..; tar czf x $USER` is escalated.
//
// Cause: homeByParent maps ~/../$USER/.ssh to ~/.ssh, but storeAncestor
// only asks whether that is strictly above a store (a store itself is left
// to the plain read rules, which do not apply homeByParent); cdTarget
// turns ~/../$USER into "" (run time); dirAt cleans -C ~/.. to "~".
// Severity: medium (a packed copy of ~/.ssh or ~/.aws with no approval).
// Fix: in storeAncestor, a homeByParent result that is a store or below one
// counts too; cdTarget should map a homeByParent result to that home path;
// dirAt should keep ~/.. as homeParentDir like cdTarget does.
// Fixed: storeAncestor counts a homeByParent path at or below a store;
// homeByParent takes a glob (~/../*/.ssh) as a run-time name; cdTarget
// enters the home for cd ~/../$USER (and $USER after cd ~/..); dirAt keeps
// -C ~/.. as homeParentDir (optionDir).
func TestRedteam25Classify2HomeParentStore(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`zip -r /tmp/x.zip ~/../$USER/.ssh`, Escalated, false},
		{`cp -r ~/../$USER/.ssh /tmp/x`, Escalated, false},
		{`tar czf /tmp/x.tgz ~/../$USER/.aws`, Escalated, false},
		{`rsync -a ~/../$USER/.aws/ /tmp/x`, Escalated, false},
		{`grep -r KEY ~/../$USER/.aws`, Escalated, false},
		{`cd ~/..; cp -r $USER/.ssh /tmp/x`, Escalated, false},
		{`cd ~/../$USER && tar czf /tmp/x.tgz .`, Escalated, false},
		{`cd ~/..; cd ./$USER && zip -r /tmp/x.zip .`, Escalated, false},
		{`cd ~/.. && cd "$USER" && tar czf /tmp/x.tgz .`, Escalated, false},
		{`tar czf /tmp/x.tgz -C ~/.. $USER`, Escalated, false},
		{`tar -C "$HOME/.." -czf /tmp/x.tgz "$(whoami)"`, Escalated, false},
		{`zip -r /tmp/x.zip ~/../*/.ssh`, Escalated, false},
		// Controls.
		{`zip -r /tmp/x.zip ~/.ssh`, Escalated, true},
		{`cp -r /home/$USER/.ssh /tmp/x`, Escalated, true},
		{`zip -r /tmp/x.zip ~/../$USER`, Escalated, true},
		{`cd ~/..; tar czf /tmp/x.tgz $USER`, Escalated, true},
		{`cd ~/..; ls $USER`, Allow, true},
		{`cd ..; ls`, Allow, true},
	})
}

// TestRedteam25Classify2NestedDefaultSlow: addOpWord (8336f14) expands the
// word of every ${X:-…} again at each nesting level (opWordValue walks and
// expands the whole nested word), so classification is quadratic in the
// nesting depth.
//
// The attack: `cat ${X:-${X:-…~/.ssh/id_rsa…}}` 8000 deep (72 KB, well under
// the 1 MiB input limit) takes ~7 s to classify (35 ms before 8336f14);
// 4000 deep with the word quoted takes ~2.3 s; at the 1 MiB limit it is
// tens of minutes. Every command an agent runs goes through the classifier
// (DESIGN: "microseconds per command"), so one such string stalls the
// caller (a hang / denial of service of the approval path).
// Severity: low-medium (availability). Fix: expand each nested default
// once (memoise by node, or compute the alt value bottom-up while
// expanding), or cap the nesting depth judged and fail closed beyond it.
// Fixed: paramnest.go — a parameter nested in an operator's word is not
// walked again (opWordState.walked), hasSubst answers once per word,
// assignDefault reuses the fields opWordValue expanded (${X:=${X:=…}} was
// 2^depth), and each nested operator is charged a step, so the step and
// time limits escalate what is still too deep (TestNestedParamOpsLinear).
func TestRedteam25Classify2NestedDefaultSlow(t *testing.T) {
	c := Default()
	n := 8000
	cmd := "cat " + strings.Repeat("${X:-", n) + "~/.ssh/id_rsa" + strings.Repeat("}", n)
	start := time.Now()
	got := c.Classify(cmd)
	// ~0.1 s (0.3 s under -race); quadratic was 7 s. The bound leaves
	// room for a loaded CI machine.
	if d := time.Since(start); d > slowdown*3*time.Second {
		t.Errorf("%d nested defaults: classified in %v (want < 3s), decision %s", n, d, got.Decision)
	}
	// Control: a flat line of the same size is fast.
	flat := "cat " + strings.Repeat("${X:-a}", n)
	start = time.Now()
	c.Classify(flat)
	if d := time.Since(start); d > slowdown*3*time.Second {
		t.Errorf("flat defaults: classified in %v", d)
	}
}

// TestRedteam25Classify2Everyday: the new default/read/home-parent code on
// everyday commands (held: no false positives). Also the attacks on the new
// code that held: nested defaults, defaults in double quotes, cd ${X:-~},
// here-docs (<<EOF, <<-EOF, <<'EOF') feeding read/mapfile, < <(echo …),
// pipes into { read; } / while read / lastpipe mapfile, IFS splits, and
// cd ~/.. / cd /home then tar/zip/rsync/cp -r of $USER, *, .
func TestRedteam25Classify2Everyday(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`cat ${FILE:-README.md}`, Allow, true},
		{`ls ${DIR:-.}`, Allow, true},
		{`grep -r TODO ${SRC:-src}`, Allow, true},
		{`read -r line < file; echo "$line"`, Allow, true},
		{`mapfile -t lines < list.txt; printf '%s\n' "${lines[@]}"`, Allow, true},
		{`while IFS= read -r line; do echo "$line"; done < file.txt`, Allow, true},
		{`IFS=, read -ra parts <<< 'a,b,c'; ls ${parts[@]}`, Allow, true},
		{`cd ..; ls`, Allow, true},
		{`cd ~/..; ls; du -sh *`, Allow, true},
		{`git log ${1:-HEAD}`, Allow, true},
		// Held attacks.
		{`cat ${X:-${Y:-~/.ssh}}/id_rsa`, Escalated, false},
		{`cat "${X:-${Y:-$HOME/.ssh/id_rsa}}"`, Escalated, false},
		{`cd ${X:-~}; cat .aws/credentials`, Escalated, false},
		{"read -r f <<-EOF\n\t/root/.ssh/id_rsa\nEOF\ncat \"$f\"", Escalated, false},
		{"mapfile -t a <<'EOF'\n/root/.ssh/id_rsa\nEOF\ncat \"${a[@]}\"", Escalated, false},
		{`read -r f < <(echo ~/.ssh/id_rsa); cat "$f"`, Escalated, false},
		{`echo ~/.ssh/id_rsa | { read x; cat "$x"; }`, Escalated, false},
		{`shopt -s lastpipe; printf '%s\n' ~/.ssh/id_rsa | mapfile -t a; cat "${a[@]}"`, Escalated, false},
		{`IFS=/ read -r a b c d <<< /root/.ssh/id_rsa; cat /$b/$c/$d`, Escalated, false},
		{`mapfile -td / a <<< 'root/.ssh/id_rsa'; cd /${a[0]}; cat ${a[1]}/${a[2]}`, Escalated, false},
		{`cd /home; tar czf /tmp/x.tgz *`, Escalated, false},
		{`cd ~/..; rsync -a . /tmp/x`, Escalated, false},
		{`cd "$HOME/.."; tar czf /tmp/x.tgz "$USER"`, Escalated, false},
	})
}
