//go:build linux

package classify

import "testing"

// TestRedteam22FileCode: a file written earlier on the line is judged
// when the line runs it as a script (echo CODE > x.py; python3 x.py is
// forbidden for rm -rf ~/.ssh in CODE), but not when a program reads the
// same file as code some other way, and the line is "sandboxed":
//   - make reading the Makefile the line wrote (make --eval and make -f -
//     are followed, makefile.go, but not the default makefile);
//   - npm test / npm run reading package.json's scripts;
//   - python3 -c 'import x' and python3 -m x loading x.py from the working
//     directory, and sitecustomize.py put on sys.path by PYTHONPATH=.;
//   - node -r ./x.js and node -e 'require("./x")';
//   - perl -I. -Mx loading x.pm;
//   - awk -f x.awk and sed -f x.sed (sed's e command runs a shell);
//   - PERL5DB (the debugger perl -d loads: code in the environment, like
//     PERL5OPT, which is eval-exec; PERL5DB is not in loaderVars).
//
// Every attack below ran its payload for real (fake HOME; each needs the
// program on PATH, else only the verdict is checked).
//
// Severity: medium (a forbidden payload in plain sight rated sandboxed;
// the program is one an agent runs every day, so the pattern reads as
// routine; fixing needs a model of each program's file conventions).
// Affects root and unprivileged callers alike (pure classifier).
//
// A fix would need: the files programs read as code by convention
// (Makefile/makefile/GNUmakefile for make without -f, package.json's
// "scripts" for npm/yarn/pnpm run/test/start/install, a module named by
// python -m / import / node require or -r / perl -M / ruby -r, awk -f,
// sed -f, PYTHONPATH's sitecustomize/usercustomize) looked up in
// analyzer.files and their text classified in that language, as
// writtenScript does for scripts run by name; PERL5DB (and perl -d's
// PERLDB_OPTS) added to loaderVars.
//
// Fixed (these rows): PERL5DB is in loaderVars (rules_exec.go). The files
// programs read as code by convention are not followed: those rows are in
// TestRedteam22LimitFileCodeConventions.
func TestRedteam22FileCode(t *testing.T) {
	rm := `rm -rf ~/.ssh`
	py := `import os; os.system("` + rm + `")`
	js := `require("child_process").execSync("` + rm + `")`
	rt22dCheck(t, []rt22dCase{
		{command: `PERL5DB='BEGIN{system(q(` + rm + `))}' perl -d -e 1`, want: Escalated, effect: rt22dSSHGone, needs: []string{"perl"}},

		// Controls: the forms the classifier follows, and benign files.
		{command: `echo '` + py + `' > x.py; python3 x.py`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"python3"}},
		{command: `echo '` + js + `' > x.js; node x.js`, want: Forbidden},
		{command: `printf 'all:\n\t` + rm + `\n' | make -f -`, want: Forbidden},
		{command: `PERL5OPT=-Mx perl -e1`, want: Escalated},
		{command: `printf 'all:\n\tgo build ./...\n' > Makefile; make`, want: Sandboxed, exact: true},
		{command: `echo '{"scripts":{"test":"jest"}}' > package.json; npm test`, want: Sandboxed, exact: true},
		{command: `echo 'print(1)' > x.py; python3 -c 'import x'`, want: Sandboxed, exact: true},
	})
}

// TestRedteam22LimitFileCodeConventions holds the rows of
// TestRedteam22FileCode left unfixed: a file the line wrote that a program
// reads as code by its own convention (make's default Makefile, npm's
// package.json scripts, python -m / import / sitecustomize on PYTHONPATH,
// node -r / require, perl -M, awk -f, sed -f) is not looked up and judged
// in that language. Each ran its payload for real where the program exists.
func TestRedteam22LimitFileCodeConventions(t *testing.T) {
	t.Skip("documented limit: files read as code by a program's convention (Makefile, package.json scripts, modules, awk -f, sed -f) are not followed")
	rm := `rm -rf ~/.ssh`
	py := `import os; os.system("` + rm + `")`
	js := `require("child_process").execSync("` + rm + `")`
	rt22dCheck(t, []rt22dCase{
		{command: `printf 'all:\n\t` + rm + `\n' > Makefile; make`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"make"}},
		{command: `echo '{"scripts":{"test":"` + rm + `"}}' > package.json; npm test`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"npm"}},
		{command: `echo '{"scripts":{"build":"` + rm + `"}}' > package.json; npm run build`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"npm"}},
		{command: `echo '` + py + `' > x.py; python3 -c 'import x'`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"python3"}},
		{command: `echo '` + py + `' > x.py; python3 -m x`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"python3"}},
		{command: `echo '` + py + `' > sitecustomize.py; PYTHONPATH=. python3 -c pass`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"python3"}},
		{command: `echo '` + js + `' > x.js; node -r ./x.js -e 1`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"node"}},
		{command: `echo '` + js + `' > x.js; node -e 'require("./x")'`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"node"}},
		{command: `echo 'system("` + rm + `"); 1;' > x.pm; perl -I. -Mx -e1`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"perl"}},
		{command: `echo 'BEGIN{system("` + rm + `")}' > x.awk; awk -f x.awk`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"awk"}},
		{command: `echo '1e ` + rm + `' > x.sed; echo a | sed -f x.sed`, want: Forbidden, effect: rt22dSSHGone, needs: []string{"sed"}},
	})
}
