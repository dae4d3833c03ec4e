package classify

import "testing"

// TestRedteam43SpecialAssign: in dash (and any POSIX shell, and bash in
// posix mode) an assignment before a special builtin (`:`, `eval`, `export`,
// `readonly`, `set`, `shift`, `.`, `exec`, `trap`, `times`, `unset` …)
// stays set in the shell after the builtin; in bash -c it lasts for that
// command only. The classifier models bash's rule even under
// ClassifyShell("dash", …), so a value hidden in `X=V :` is unseen later:
//
//	X=~ :; cd "${X:-.}" && rm -rf .             (dash: rm -rf ~ — sandboxed)
//	X=~ eval :; cd "${X:-.}" && rm -rf .        (same, via eval)
//	X=~ export Y; cd "${X:-.}" && rm -rf .      (same, via export)
//	X=~/.ssh/id_rsa :; cat "${X:-README}"        (dash: reads the key — allow)
//
// bash keeps them as well in posix mode (`set -o posix`, POSIXLY_CORRECT,
// `bash --posix`), which ClassifyShell("bash", …) does not model either.
//
// Found by red-team round 43 (high: under Exec's default /bin/sh the home
// was deleted with a sandboxed verdict, and an SSH key read allowed).
// Fixed: a special builtin's prefix assignments stay set after it in a
// POSIX reading, and in the bash reading where posix mode may be on: bash
// run as sh, --posix, -o posix, set -o posix, POSIXLY_CORRECT
// (keepSpecialAssigns).
func TestRedteam43SpecialAssign(t *testing.T) {
	cases := []struct {
		dangerous, harmless string
		want                Decision
	}{
		{`X=~ :; cd "${X:-.}" && rm -rf .`, `mkdir PWNED43; X=PWNED43 :; cd "${X:-.}" && pwd`, Forbidden},
		{`X=~ eval :; cd "${X:-.}" && rm -rf .`, `mkdir PWNED43; X=PWNED43 eval :; cd "${X:-.}" && pwd`, Forbidden},
		{`X=~ export Y; cd "${X:-.}" && rm -rf .`, `mkdir PWNED43; X=PWNED43 export Y; cd "${X:-.}" && pwd`, Forbidden},
		{`X=~/.ssh/id_rsa :; cat "${X:-README}"`, `echo PWNED43 > m; X=m :; cat "${X:-README}"`, Escalated},
	}
	for _, c := range cases {
		rt43aCheck(t, "dash", c.dangerous, c.harmless, c.want)
	}
	// bash in posix mode (`set -o posix`, POSIXLY_CORRECT, `bash --posix`)
	// keeps them too.
	bashCases := []struct{ dangerous, harmless string }{
		{`set -o posix; X=~ :; cd "${X:-.}" && rm -rf .`, `mkdir PWNED43; set -o posix; X=PWNED43 :; cd "${X:-.}" && pwd`},
		{`POSIXLY_CORRECT=1; X=~ :; cd "${X:-.}" && rm -rf .`, `mkdir PWNED43; POSIXLY_CORRECT=1; X=PWNED43 :; cd "${X:-.}" && pwd`},
		{`bash --posix -c 'X=~ :; cd "${X:-.}" && rm -rf .'`, `mkdir PWNED43; bash --posix -c 'X=PWNED43 :; cd "${X:-.}" && pwd'`},
	}
	for _, c := range bashCases {
		rt43aCheck(t, "bash", c.dangerous, c.harmless, Forbidden)
	}
	// Control: the same line without the prefix-assignment trick is judged.
	if r := Default().ClassifyShell("dash", `X=~; cd "${X:-.}" && rm -rf .`); r.Decision != Forbidden {
		t.Errorf("control: plain assignment judged %s (rule %q)", r.Decision, r.Rule)
	}
}
