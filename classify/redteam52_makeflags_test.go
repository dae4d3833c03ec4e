package classify

import "testing"

// TestRedteam52MakeFlagsEval: GNU make reads its options from the
// MAKEFLAGS and GNUMAKEFLAGS environment variables as from its command
// line, --eval included, so a recipe can be handed to make in the
// environment:
//
//	MAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh' make                sandboxed
//	GNUMAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh' make             sandboxed
//	export MAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh'; make        sandboxed
//
// where `make --eval='x:; rm -rf ~/.ssh'` and `make -E 'x:; rm -rf
// ~/.ssh'` are forbidden. With no makefile in the directory the first
// target the --eval text defines is the goal, so `make` alone runs it.
//
// Why: makefile.go follows make's --eval/-E arguments and the makefiles
// the line writes, but the assignment of MAKEFLAGS/GNUMAKEFLAGS before
// make (envconfig.go knows the variables that name a pager, an editor,
// LD_PRELOAD …, not these) is not read as make options, so the recipe is
// never judged.
//
// The premise runs each line in an empty working directory with a fake
// home and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 52.
// Fixed: make reads the options of MAKEFLAGS and GNUMAKEFLAGS before its
// own (escapes.go: makeFlags).
func TestRedteam52MakeFlagsEval(t *testing.T) {
	lines := []string{
		`MAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh' make`,
		`GNUMAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh' make`,
		`export MAKEFLAGS='--eval=x:;rm\ -rf\ ~/.ssh'; make`,
	}
	if rtHave(t, "bash", "make") {
		for _, line := range lines {
			home, work := rt52bHome(t)
			out := rt52bRun(t, home, work, line)
			if !rt52bGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	// References: the same text as make's own option.
	rtAtLeast(t, []string{"bash"}, `make --eval='x:; rm -rf ~/.ssh'`, Forbidden)
	// Controls: everyday MAKEFLAGS.
	rtBelow(t, `MAKEFLAGS=-j4 make`, Escalated)
	rtBelow(t, `MAKEFLAGS='-j4 --no-print-directory' make all`, Escalated)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
}
