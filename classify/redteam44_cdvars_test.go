package classify

import "testing"

// rt44aAtRoot is the marker appended to a premise: it prints PWNED44 when
// the shell's working directory is /.
const rt44aAtRoot = `; [ "$(pwd -P)" = / ] && echo PWNED44`

// TestRedteam44PrefixHomeCd: `HOME=DIR cd` (a prefix assignment on the
// cd builtin) makes cd go to DIR in bash and dash alike, and the working
// directory stays DIR after it. The classifier takes the bare `cd` to the
// real home whatever the prefix says, so a relative path after it is
// judged under ~:
//
//	HOME=/ cd; rm -rf home               (deletes /home — sandboxed)
//	HOME=/ cd && rm -rf home             (same)
//	HOME=/ command cd; rm -rf home       (same, through command)
//	HOME=/ eval cd; rm -rf home          (same, through eval)
//
// `HOME=/; cd; rm -rf home` (a plain assignment) is forbidden, so only the
// prefix form is missed.
// Found by red-team round 44 (high: /home deleted, verdict sandboxed, under
// Exec's /bin/sh and bash). Fixed: a bare cd takes HOME from its own
// prefix assignments (dirVar); later (next stop) eval and source give
// their prefix assignments to the code they run (tempAssigns), and
// printf -v HOME / sets a known HOME as read HOME <<< / does.
func TestRedteam44PrefixHomeCd(t *testing.T) {
	cases := []struct{ shell, dangerous, harmless string }{
		{"dash", `HOME=/ cd; rm -rf home`, `HOME=/ cd` + rt44aAtRoot},
		{"bash", `HOME=/ cd; rm -rf home`, `HOME=/ cd` + rt44aAtRoot},
		{"dash", `HOME=/ cd && rm -rf home`, `HOME=/ cd` + rt44aAtRoot},
		{"bash", `HOME=/ command cd; rm -rf home`, `HOME=/ command cd` + rt44aAtRoot},
		{"dash", `HOME=/ command cd; rm -rf home`, `HOME=/ command cd` + rt44aAtRoot},
		{"bash", `HOME=/ builtin cd; rm -rf home`, `HOME=/ builtin cd` + rt44aAtRoot},
		{"bash", `HOME=/ eval cd; rm -rf home`, `HOME=/ eval cd` + rt44aAtRoot},
		{"dash", `HOME=/ eval cd; rm -rf home`, `HOME=/ eval cd` + rt44aAtRoot},
		{"bash", `HOME=/ eval 'cd; rm -rf home'`, `HOME=/ eval 'cd'` + rt44aAtRoot},
		{"bash", `printf -v HOME /; cd; rm -rf home`, `printf -v HOME /; cd` + rt44aAtRoot},
	}
	for _, c := range cases {
		rt44aCheck(t, c.shell, c.dangerous, c.harmless, Forbidden)
	}
	if r := Default().ClassifyShell("dash", `HOME=/; cd; rm -rf home`); r.Decision != Forbidden {
		t.Errorf("control: HOME=/; cd; rm -rf home = %s, want forbidden", r.Decision)
	}
}

// TestRedteam44OldpwdCd: `cd -` goes to $OLDPWD, in bash and dash, and
// OLDPWD is an ordinary variable a line can set (plainly, exported, or as
// a prefix on cd). The classifier follows `cd -` only to a directory an
// earlier cd on the line left, and otherwise ignores the OLDPWD the line
// gave it:
//
//	OLDPWD=/; cd -; rm -rf home          (deletes /home — sandboxed)
//	OLDPWD=/ cd - && rm -rf home         (same, prefix form)
//	export OLDPWD=/; cd -; rm -rf home   (same)
//	OLDPWD=/ cd -- -; rm -rf home        (`--` then `-`: the same cd -)
//	cd ~; OLDPWD=/ cd -; rm -rf home     (an earlier cd is overridden)
//
// Found by red-team round 44 (high: /home deleted with a sandboxed
// verdict). Fixed: cd - goes to the OLDPWD the line gave, on the cd or
// before it (dirVar).
func TestRedteam44OldpwdCd(t *testing.T) {
	cases := []struct{ shell, dangerous, harmless string }{
		{"dash", `OLDPWD=/; cd -; rm -rf home`, `OLDPWD=/; cd - >/dev/null` + rt44aAtRoot},
		{"bash", `OLDPWD=/; cd -; rm -rf home`, `OLDPWD=/; cd - >/dev/null` + rt44aAtRoot},
		{"dash", `OLDPWD=/ cd - && rm -rf home`, `OLDPWD=/ cd - >/dev/null` + rt44aAtRoot},
		{"bash", `export OLDPWD=/; cd -; rm -rf home`, `export OLDPWD=/; cd - >/dev/null` + rt44aAtRoot},
		{"bash", `OLDPWD=/ cd -- -; rm -rf home`, `OLDPWD=/ cd -- - >/dev/null` + rt44aAtRoot},
		{"dash", `cd ~; OLDPWD=/ cd -; rm -rf home`, `cd ~; OLDPWD=/ cd - >/dev/null` + rt44aAtRoot},
	}
	for _, c := range cases {
		rt44aCheck(t, c.shell, c.dangerous, c.harmless, Forbidden)
	}
	if r := Default().ClassifyShell("dash", `cd /; cd /tmp; cd -; rm -rf home`); r.Decision != Forbidden {
		t.Errorf("control: cd /; cd /tmp; cd -; rm -rf home = %s, want forbidden", r.Decision)
	}
}
