package classify

import (
	"testing"
)

// TestRedteam44InterpreterArgv: inline code that runs a command it is
// handed (its own arguments, an awk variable, a string kept in a
// variable, a pipe opened by perl's or ruby's open, gawk's |&) ran
// rm -rf ~ under a sandboxed verdict:
//
//	perl -e 'exec @ARGV' rm -rf ~
//	python3 -c 'import os,sys; os.execvp(sys.argv[1], sys.argv[1:])' rm -rf ~
//	awk -v c='rm -rf ~' 'BEGIN{system(c)}'
//	perl -e 'open(F, "|rm -rf ~"); close F'
//
// Found by red-team round 44 (medium: a forbidden command through an
// interpreter one-liner, sandboxed). Fixed (next stop): a spawn call whose
// command is not string literals escalates the code, and what the line
// hands it (operands where it passes on its arguments, awk assignments,
// the code's own strings) is judged as the command it may be
// (codespawn.go); perl's and ruby's pipe opens and gawk's |& are read as
// commands. Each premise runs where the interpreter is installed.
func TestRedteam44InterpreterArgv(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"perl", "-e", "exec @ARGV", "ARGS"}},
		{argv: []string{"perl", "-e", "system @ARGV", "ARGS"}},
		{argv: []string{"perl", "-e", `system("sh", "-c", @ARGV)`, "CMD"}},
		{argv: []string{"perl", "-e", `open(F, "|CMD"); close F`}},
		{argv: []string{"perl", "-e", `open(F, "CMD|"); my @x = <F>`}},
		{argv: []string{"python3", "-c", "import os,sys; os.execvp(sys.argv[1], sys.argv[1:])", "ARGS"}},
		{argv: []string{"python3", "-c", "import subprocess,sys; subprocess.run(sys.argv[1:])", "ARGS"}},
		{argv: []string{"python3", "-c", "import os,sys; os.system(sys.argv[1])", "CMD"}},
		{argv: []string{"python3", "-c", `import os; c = "CMD"; os.system(c)`}},
		{argv: []string{"node", "-e", `require("child_process").execSync(process.argv[1])`, "CMD"}},
		{argv: []string{"awk", "-v", "c=CMD", "BEGIN{system(c)}"}},
		{argv: []string{"awk", "BEGIN{system(ARGV[1])}", "CMD"}},
		{argv: []string{"awk", `BEGIN{c="CMD"; system(c)}`}},
		{argv: []string{"awk", "END{system(c)}", "c=CMD", "/dev/null"}},
		{argv: []string{"gawk", `BEGIN{print "CMD" |& "sh"; close("sh")}`}},
		{argv: []string{"ruby", "-e", "exec(*ARGV)", "ARGS"}},
		{argv: []string{"ruby", "-e", `open("|CMD").read`}},
		{argv: []string{"php", "-r", "system($argv[1]);", "CMD"}},
		// lua takes its first operand for a script (an empty one here):
		// the arguments after it are arg[1] on.
		{argv: []string{"lua", "-e", "os.execute(arg[1])", "/dev/null", "CMD"}},
	}, Forbidden)
}

// TestRedteam44OpaqueSpawn: the same where the command is out of the
// line's sight (perl's q() quoting, an environment variable, a vim
// variable): escalated, a person decides.
func TestRedteam44OpaqueSpawn(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"perl", "-e", "system(q(CMD))"}},
		{argv: []string{"perl", "-e", `open(my $f, "-|", "sh", "-c", $ENV{C}); my @x = <$f>`}, env: []string{"C=CMD"}},
		{argv: []string{"python3", "-c", `import os; os.system(os.environ["C"])`}, env: []string{"C=CMD"}},
		{argv: []string{"vim", "-es", "-c", `let g:x="CMD"`, "-c", "call system(g:x)", "-c", "qa!"}},
	}, Escalated)
}

// TestInterpreterSpawnControls: one-liners that run nothing they are
// handed stay below escalated, so the checks above do not escalate every
// interpreter call.
func TestInterpreterSpawnControls(t *testing.T) {
	for _, l := range []string{
		`python3 -c 'import asyncio; asyncio.run(main())'`,
		`python3 -c 'import sys; print(sys.argv)' a b`,
		`python3 -c 'exec(open("setup.py").read())'`,
		`python3 -c 'import subprocess; subprocess.run(["ls", "-l"], check=True)'`,
		`python3 -c 'import os; os.system("ls")'`,
		`node -e 'console.log(/a/.exec("abc"))'`,
		`perl -e 'print "exec me\n"' a b`,
		`perl -ne 'print if /x/' file`,
		`perl -e 'open(my $f, "-|", "ls", "-l"); print <$f>'`,
		`awk '{print $1}' file`,
		`awk -v n=3 'NR<n' file`,
		`gawk '{ "date" |& getline d; print d }' file`,
		`vim -c 'set number' f`,
		`vim -c 'wq!' f`,
		`vim -c 'call system("ls")' f`,
	} {
		for _, sh := range []string{"bash", "dash"} {
			if r := Default().ClassifyShell(sh, l); r.Decision >= Escalated {
				t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want below escalated", sh, l, r.Decision, r.Rule)
			}
		}
	}
}
