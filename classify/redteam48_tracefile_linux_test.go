package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam48TraceFileVars: allow-listed programs write files named by
// environment variables the classifier does not read as write targets
// (writetargets.go: pathWriteTargets looks at redirections and at the
// options of known writers; rules_exec.go: riskyEnv knows neither):
//
//   - git appends its trace to the absolute path in GIT_TRACE (and
//     GIT_TRACE_SETUP, GIT_TRACE2, GIT_TRACE_PACKET, …):
//     GIT_TRACE=$HOME/.ssh/authorized_keys git status writes into ~/.ssh,
//     which a redirection may not (output-redirect-system, forbidden), and
//     GIT_TRACE=/etc/ld.so.preload git status into /etc;
//   - less writes its search and command history to LESSHISTFILE when it
//     quits on a terminal, replacing the file: LESSHISTFILE=$HOME/.bashrc
//     less +/x README overwrites ~/.bashrc.
//
// Each line is judged allow (git-read-commands, common-safe-commands).
// The text written is git's trace line or less's history, not text the
// line chooses, so this is a write the policy denies, not code run.
//
// The premise runs each for real in a fake home (less on a
// pseudo-terminal) and finds the file written.
//
// Severity: medium (writes into ~/.ssh, /etc and rc files judged allow;
// their content is the program's, a timestamp first on each line).
// Found by red-team round 48 (medium). Fixed: GIT_TRACE* given a path,
// LESSHISTFILE and HISTFILE are write targets of the program the line runs
// (unit.envFiles: its own assignment or the line's earlier one), and such
// a program is not allow.
func TestRedteam48TraceFileVars(t *testing.T) {
	if !rtHave(t, "git", "less", "bash") {
		t.Skip("git or less missing")
	}
	home, work := rt48bHome(t)
	out := rt48bRun(t, "bash", home, work, `GIT_TRACE=$HOME/.ssh/authorized_keys git version`, "")
	if b, _ := os.ReadFile(filepath.Join(home, ".ssh/authorized_keys")); !strings.Contains(string(b), "trace: built-in: git version") {
		t.Fatalf("premise: GIT_TRACE did not write ~/.ssh/authorized_keys (%q): %s", b, out)
	}
	home, work = rt48bHome(t)
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("export EDITOR=vim\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = rt48bRunPty(t, home, work, `LESSHISTFILE=$HOME/.bashrc less +/readme README`, "q")
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); !strings.Contains(string(b), "less-history-file") || strings.Contains(string(b), "EDITOR") {
		t.Fatalf("premise: LESSHISTFILE did not replace ~/.bashrc (%q): %s", b, out)
	}

	both := []string{"bash", "dash"}
	rtAtLeast(t, both, `GIT_TRACE=$HOME/.ssh/authorized_keys git status`, Escalated)
	rtAtLeast(t, both, `GIT_TRACE_SETUP=$HOME/.ssh/config git log -1`, Escalated)
	rtAtLeast(t, both, `GIT_TRACE=/etc/ld.so.preload git status`, Escalated)
	rtAtLeast(t, both, `export GIT_TRACE2=$HOME/.bashrc; git status`, Sandboxed)
	rtAtLeast(t, both, `LESSHISTFILE=$HOME/.bashrc less +/x README`, Sandboxed)
	// Control: a redirection to the same file is judged; tracing to the terminal stays allow.
	rtAtLeast(t, both, `git status 2>> ~/.ssh/authorized_keys`, Forbidden)
	for _, l := range []string{"GIT_TRACE=1 git status", "GIT_TRACE=2 git log -1", "LESSHISTFILE=- less README"} {
		rtBelow(t, l, Sandboxed)
	}
}
