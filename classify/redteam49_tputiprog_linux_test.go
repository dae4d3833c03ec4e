package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam49TputIprog: `tput init` runs the terminal description's
// iprog capability, a command (ncurses' tput). The description is looked
// up in $TERMINFO first (ncurses also reads $TERMINFO_DIRS and
// ~/.terminfo), which a line can point at a directory of its project:
//
//	TERMINFO=ti TERM=x tput init
//
// with ti/x/x compiled from `x|rt49, iprog=/bin/sh -c "rm -rf ~/.ssh",`
// removes ~/.ssh on a terminal and is allow (common-safe-commands):
// matchCommonSafe (rules_allow.go) has no case for tput, and TERMINFO is
// not in loaderVars (rules_exec.go), though the lesskey variables, which
// likewise name a file whose settings run a command, are (eval-exec).
//
// The premise compiles the description with tic in the project and runs
// the line on a pseudo-terminal in a fake home.
//
// Severity: medium (a command chosen by a file judged allow where the
// classifier escalates the same thing through LESSKEY).
// Found by red-team round 49 (medium). Fixed: TERMINFO and TERMINFO_DIRS
// are loader variables (escalated).
func TestRedteam49TputIprog(t *testing.T) {
	line := `TERMINFO=ti TERM=x tput init`
	if rtHave(t, "bash", "tput", "tic") {
		home, work := rt49bHome(t)
		src := "x|rt49,\n\tiprog=/bin/sh -c \"rm -rf ~/.ssh\",\n"
		if err := os.WriteFile(filepath.Join(work, "ti.src"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		rt49bRun(t, "bash", home, work, "tic -o ti ti.src")
		out := rt49bRunPty(t, home, work, line)
		if !rt49bSSHGone(home) {
			t.Fatalf("premise: %q on a terminal did not run iprog (output %q)", line, out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `LESSKEYIN=k less README`, Escalated) // control
	rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	rtBelow(t, `tput cols`, Sandboxed)
}
