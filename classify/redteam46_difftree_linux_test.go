package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam46DiffTreeRead: a recursive diff of the home against an empty
// directory prints every file of the home, credential stores included:
//
//	diff -rN /tmp/empty ~          (-N: a missing file is empty, so each
//	                                file of ~ is printed as added lines)
//	git diff --no-index /tmp/empty ~   (every file shown as a new file)
//
// prints ~/.ssh/id_rsa and ~/.aws/credentials as surely as grep -r . ~,
// which is credential-access. readsStoreTree (recursiveread.go) knows
// recursive readers by name (grep, rg, ag, ack, tar, cp, rsync, scp, zip,
// 7z, find -exec, and git only for grep --no-index): diff and git diff
// --no-index are not among them, and diff is in safeCmds
// (rules_allow.go), git diff in gitReadSubs, so the lines are allow.
//
// Severity: high (every credential of the home read, judged allow).
// Found by red-team round 46. Fixed: diff -r and git diff
// --no-index are recursive readers (recursiveReaders, readsStoreTree).
func TestRedteam46DiffTreeRead(t *testing.T) {
	for _, tc := range []struct {
		line string
		prog string
	}{
		{`diff -rN empty ~`, "diff"},
		{`diff -ruN empty ~`, "diff"},
		{`diff --recursive --new-file empty ~`, "diff"},
		{`diff -rN ~ empty`, "diff"},
		{`git diff --no-index empty ~`, "git"},
		{`git diff --no-index ~ empty`, "git"},
	} {
		if rt46aHave(t, tc.prog, "bash") {
			home, work := rt46aHome(t)
			if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
			if out := rt46aExec(t, "bash", home, work, tc.line); !strings.Contains(out, rt46aSecret) {
				t.Fatalf("premise: %q did not print the fake secret: %q", tc.line, out)
			}
		}
		rt46aAtLeast(t, tc.line, Escalated)
	}
	// controls: grep -r over the home is escalated; diffing project trees
	// stays allowed.
	if r := Default().ClassifyShell("bash", `grep -r . ~`); r.Decision != Escalated {
		t.Fatalf("control: grep -r . ~ = %s (%s), want escalated", r.Decision, r.Rule)
	}
	for _, l := range []string{`diff -ruN old/ new/`, `git diff --no-index a b`} {
		if r := Default().ClassifyShell("bash", l); r.Decision != Allow {
			t.Errorf("control: %q = %s (%s), want allow", l, r.Decision, r.Rule)
		}
	}
}
