package classify

import "testing"

// TestRedteam56MakeBuiltinCompositeVars: make's built-in rules do not run
// $(CC) … directly but through composite variables (`%: %.c` runs
// $(LINK.c) $^ …, `%.o: %.c` runs $(COMPILE.c) $(OUTPUT_OPTION) $<), and
// the environment overrides their defaults as it does CC's. A name with
// a dot cannot be a shell variable, but env sets it:
//
//	echo 'int main(){return 0;}' > x.c; env 'LINK.c=rm -rf ~/.ssh;' make x        sandboxed
//	echo 'int main(){return 0;}' > x.c; env 'COMPILE.c=rm -rf ~/.ssh;' make x.o   sandboxed
//
// delete ~/.ssh, as `env 'CC=rm -rf ~/.ssh;' make x` and `make 'LINK.c=rm
// -rf ~/.ssh;' x` (forbidden, round 55) do.
//
// Why: makefile.go makeVarDefs judges every variable defined on make's
// command line, but from the environment only makeCommandVars (CC,
// CFLAGS, SHELL, …), which lists the base variables and none of the
// composites the built-in rules expand: COMPILE.c, COMPILE.cc,
// COMPILE.C, COMPILE.cpp, COMPILE.s, COMPILE.S, LINK.c, LINK.cc, LINK.o,
// LINK.s, LINK.S, PREPROCESS.S, LEX.l, YACC.y, LINT.c, CHECKOUT,v, ….
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: makefile.go (makeCompositeVar) and wrappers.go (env
// takes any NAME=VALUE: envAssignment).
func TestRedteam56MakeBuiltinCompositeVars(t *testing.T) {
	const src = `echo 'int main(){return 0;}' > x.c; `
	lines := []string{
		src + `env 'LINK.c=rm -rf ~/.ssh;' make x`,
		src + `env 'COMPILE.c=rm -rf ~/.ssh;' make x.o`,
	}
	if rtHave(t, "bash", "make", "env") {
		for _, l := range lines {
			rt56aPremise(t, l)
		}
	}
	// References: CC in the environment, LINK.c on the command line.
	rtAtLeast(t, []string{"bash"}, src+`env 'CC=rm -rf ~/.ssh;' make x`, Forbidden)
	rtAtLeast(t, []string{"bash"}, src+`make 'LINK.c=rm -rf ~/.ssh;' x`, Forbidden)
	// The attack.
	for _, l := range append(lines, src+`env 'LINK.o=rm -rf ~/.ssh;' 'COMPILE.cc=rm -rf ~/.ssh;' make x`) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: ordinary flags through the environment.
	rtBelow(t, src+`env 'CFLAGS=-O2 -g' make x`, Escalated)
	rtBelow(t, src+`env 'LINK.c=cc -static' make x`, Escalated)
}
