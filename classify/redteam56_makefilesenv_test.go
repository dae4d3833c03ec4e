package classify

import "testing"

// TestRedteam56MakefilesEnv: GNU make reads every makefile named in the
// MAKEFILES environment variable before its own (the manual's "The
// Variable MAKEFILES"), so what they hold runs as the make file's: a
// $(shell …) at once, whatever the goal. So
//
//	printf '$(shell rm -rf ~/.ssh)\n' > x.mk; MAKEFILES=x.mk make         sandboxed
//	printf '$(shell rm -rf ~/.ssh)\n' > x.mk; export MAKEFILES=x.mk; make test   sandboxed
//
// delete ~/.ssh, as `make -f x.mk` of the same file (forbidden) does.
//
// Why: makefile.go judges the makefiles the line wrote that make reads
// (-f, the default names, --eval, include) and escapes.go makeFlags
// reads MAKEFLAGS/GNUMAKEFLAGS (round 54), but MAKEFILES is read
// nowhere: it is neither an option variable (envconfig.go) nor in
// rules_exec.go loaderVars.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: makefile.go (MAKEFILES' written makefiles are judged).
func TestRedteam56MakefilesEnv(t *testing.T) {
	const line = `printf '$(shell rm -rf ~/.ssh)\n' > x.mk; MAKEFILES=x.mk make`
	if rtHave(t, "bash", "make") {
		rt56aPremise(t, line)
	}
	// Reference: the same file given with -f.
	rtAtLeast(t, []string{"bash"}, `printf '$(shell rm -rf ~/.ssh)\n' > x.mk; make -f x.mk`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `printf '$(shell rm -rf ~/.ssh)\n' > x.mk; export MAKEFILES=x.mk; make test`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `printf 'all:\n\trm -rf ~/.ssh\n' > x.mk; MAKEFILES=x.mk make`, Forbidden)
	// Controls: settings in a MAKEFILES file, and MAKEFILES of a file the
	// line did not write.
	rtBelow(t, `printf 'CFLAGS=-O2\n' > x.mk; MAKEFILES=x.mk make`, Escalated)
	rtBelow(t, `make test`, Escalated)
}
