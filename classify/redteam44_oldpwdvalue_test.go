package classify

import "testing"

// TestRedteam44OldpwdValue: after two cds on the line, $OLDPWD holds the
// first directory, in bash and dash. The classifier knows that directory
// (`cd ~; cd /tmp; cd -` and `rm -rf ~-` are judged as the home) but
// takes `$OLDPWD` for a run-time value, and after a `cd` to a run-time
// directory judges relative paths as harmless, even allowing a recursive
// read of the home:
//
//	cd ~; cd /tmp; cd "$OLDPWD" && grep -r x .    (greps ~/.ssh — ALLOW)
//	cd ~; cd /tmp; cd "$OLDPWD" && rm -rf *       (home contents — sandboxed)
//	cd /; cd /tmp; cd "$OLDPWD" && rm -rf home    (/home — sandboxed)
//	cd /; cd /tmp; rm -rf "${OLDPWD}home"         (/home — sandboxed)
//
// and, in bash, `~-` in a cd when the old directory is `/`:
//
//	cd /; cd /tmp; cd ~-; rm -rf home             (/home — sandboxed; `cd -` is forbidden)
//
// Found by red-team round 44 (high: an allowed read of every credential in
// the home; the home or /home deleted with a sandboxed verdict). Fixed: a
// cd sets $OLDPWD to the directory it left, as the analysis follows it
// (chdir); later (next stop) bash's ~- and ~+ expand to $OLDPWD and $PWD
// (expandLit).
func TestRedteam44OldpwdValue(t *testing.T) {
	const showHome = `ls; cat .ssh/id_rsa`
	cases := []struct {
		shell, dangerous, harmless string
		want                       Decision
	}{
		{"dash", `cd ~; cd /tmp; cd "$OLDPWD" && grep -r x .`, `cd ~; cd /tmp; cd "$OLDPWD" && grep -r PWNED44KEY .`, Escalated},
		{"bash", `cd ~; cd /tmp; cd "$OLDPWD" && grep -r x .`, `cd ~; cd /tmp; cd "$OLDPWD" && grep -r PWNED44KEY .`, Escalated},
		{"dash", `cd ~; cd /tmp; cd "$OLDPWD" && rm -rf *`, `cd ~; cd /tmp; cd "$OLDPWD" && ` + showHome, Forbidden},
		{"bash", `cd /; cd /tmp; cd "$OLDPWD" && rm -rf home`, `cd /; cd /tmp; cd "$OLDPWD"` + rt44aAtRoot, Forbidden},
		{"dash", `cd /; cd /tmp; rm -rf "${OLDPWD}home"`, `cd /; cd /tmp; [ "${OLDPWD}home" = /home ] && echo PWNED44`, Forbidden},
		{"bash", `cd /; cd /tmp; cd ~-; rm -rf home`, `cd /; cd /tmp; cd ~-` + rt44aAtRoot, Forbidden},
		{"bash", `cd /; cd /tmp; cd ~-/etc; rm -rf *`, `cd /; cd /tmp; cd ~-/etc; [ -f passwd ] && [ -f ../etc/passwd ] && echo PWNED44`, Forbidden},
	}
	for _, c := range cases {
		rt44aCheck(t, c.shell, c.dangerous, c.harmless, c.want)
	}
	for _, l := range []string{`cd ~; cd /tmp; cd - && rm -rf *`, `cd ~; cd /tmp; rm -rf ~-`} {
		if r := Default().ClassifyShell("bash", l); r.Decision != Forbidden {
			t.Errorf("control ClassifyShell(bash, %q) = %s, want forbidden", l, r.Decision)
		}
	}
}
