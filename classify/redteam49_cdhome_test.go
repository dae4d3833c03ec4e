package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam49CdHome: two bash options make a cd the classifier takes for
// a project directory enter the home:
//
//	shopt -s cdable_vars; cd HOME && rm -rf *   a cd operand that is no
//	                                            directory names a variable
//	                                            holding one: $HOME
//	shopt -s nullglob; cd zz* && rm -rf *       a glob matching nothing
//	                                            vanishes: a bare cd goes home
//
// Each deletes everything in the home, and is sandboxed; `cd ~ && rm -rf *`
// (and `cd $X && rm -rf *`, X empty) is forbidden (recursive-delete-root).
// cdTarget (cwd.go) resolves `HOME` and `zz*` as relative directories:
// shopt's cdable_vars and nullglob are not followed (dispatch.go reads
// shopt for lastpipe, xpg_echo and dotglob only), though cdTarget already
// knows an unquoted word that may vanish (`cd $X`) lands in the home
// (cwdMaybeHome).
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 49 (high). Fixed: with cdable_vars cd HOME is
// the home (forbidden); with nullglob a glob cd may be the home, like cd
// $X (escalated).
func TestRedteam49CdHome(t *testing.T) {
	lines := []string{
		`shopt -s cdable_vars; cd HOME && rm -rf *`,
		`shopt -s nullglob; cd zz* && rm -rf *`,
	}
	if rtHave(t, "bash") {
		for _, line := range lines {
			home, work := rt49bHome(t)
			notes := filepath.Join(home, "notes.txt")
			if err := os.WriteFile(notes, []byte("x\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			out := rt49bRun(t, "bash", home, work, line)
			if _, err := os.Stat(notes); !os.IsNotExist(err) {
				t.Fatalf("premise: %q did not delete the home's files (output %q)", line, out)
			}
		}
	}
	rtAtLeast(t, []string{"bash"}, `cd ~ && rm -rf *`, Forbidden) // control
	for _, line := range lines {
		want := Forbidden
		if strings.Contains(line, "nullglob") {
			want = Escalated // the glob may match: the home only perhaps, as cd $X
		}
		rtAtLeast(t, []string{"bash"}, line, want)
	}
	rtBelow(t, `shopt -s nullglob; cd build && rm -rf *.o`, Escalated)
}
