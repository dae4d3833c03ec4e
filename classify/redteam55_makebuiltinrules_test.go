package classify

import "testing"

// TestRedteam55MakeBuiltinRules: GNU make has built-in implicit rules (x
// from x.c, x.o from x.c, …) whose recipes are `$(CC) $(CFLAGS) …`,
// `$(CXX) …` and so on, run through /bin/sh; a variable given on make's
// command line or in the environment is put into them as text, so
//
//	echo 'int main(){return 0;}' > x.c && make CC='rm -rf ~/.ssh;' x      sandboxed
//	printf 'all: x\n' > Makefile && CC='rm -rf ~/.ssh;' make             sandboxed
//	make CFLAGS='; rm -rf ~/.ssh;' x.o                                   sandboxed
//
// run `rm -rf ~/.ssh; x.c -o x` (make prints the recipe it runs). A
// makefile the line writes is read as code (makefile.go), and `make
// --eval='x: ; rm -rf ~/.ssh' x` is forbidden, but no rule make has
// without a makefile is, and the variables that hold the commands those
// rules run (CC, CXX, CPP, AS, LD, FC, CFLAGS …) are judged as plain
// arguments.
//
// Why: makefile.go (and the make handling in convention.go) judges the
// recipes of a makefile the line wrote, with $(CC) as ${CC} only known at
// run time; it has no model of make's built-in rules, and a NAME=VALUE
// argument of make (or the environment) whose name is one of the built-in
// command variables is never read as the command it is (rules_exec.go:
// isCodeVar knows PAGER, EDITOR, cargo's runners …, not make's).
//
// The premise runs the lines with the real make in a fake home (a C
// source beside it) and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 55. Fixed: make's variable definitions on the command line and the
// built-in rules' variables in its environment are judged where a recipe
// puts them (makefile.go: makeVarDefs).
func TestRedteam55MakeBuiltinRules(t *testing.T) {
	lines := []string{
		`echo 'int main(){return 0;}' > x.c && make CC='rm -rf ~/.ssh;' x`,
		`echo 'int main(){return 0;}' > x.c && printf 'all: x\n' > Makefile && CC='rm -rf ~/.ssh;' make`,
		`echo 'int main(){return 0;}' > x.c && make CFLAGS='; rm -rf ~/.ssh;' x.o`,
		`echo 'int main(){return 0;}' > x.cc && make CXX='rm -rf ~/.ssh;' x`,
	}
	if rtHave(t, "bash", "make") {
		for _, l := range lines {
			home, work := rt55aHome(t)
			out := rt55aRun(t, home, work, l)
			if !rt55aGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// Reference: the same command in a recipe the line gives make.
	rtAtLeast(t, []string{"bash", "sh"}, `make --eval='x: ; rm -rf ~/.ssh' x`, Forbidden)
	// The attack.
	for _, l := range append(lines,
		`export CC='rm -rf ~/.ssh;'; make x`,
		`make -f /dev/null CC='rm -rf ~/.ssh;' x`,
	) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: choosing a compiler and flags stays below escalated.
	rtBelow(t, `make CC=clang CFLAGS='-O2 -Wall' x`, Escalated)
	rtBelow(t, `CC=gcc make -j4`, Escalated)
	rtBelow(t, `make CXX=g++ CXXFLAGS=-std=c++17 all`, Escalated)
}
