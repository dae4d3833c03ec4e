package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam47XargsInput: xargs builds its command line from its input,
// options and the command name included, and reads that input from
// -a FILE as well as from standard input:
//
//	printf '%s\n' -rf ~ | xargs rm                  rm -rf ~
//	printf '%s\n' rm -rf ~ | xargs env              env rm -rf ~
//	printf '%s\n' rm -rf ~ | xargs nice             nice rm -rf ~
//	printf '%s\n' rm -rf ~ | xargs timeout 9        timeout 9 rm -rf ~
//	printf '%s\n' -c 'rm -rf ~' | xargs -d '\n' sh  sh -c 'rm -rf ~'
//	printf 'rm -rf ~\n' > x; xargs -0 -a x sh -c    sh -c 'rm -rf ~…'
//	xargs -a ~/.aws/credentials echo                prints the credentials
//	xargs --arg-file ~/.aws/credentials echo
//
// The deleting lines are sandboxed, where `echo ~ | xargs rm -rf`
// (destructive-xargs) and `printf 'rm -rf ~\n' | xargs -0 sh -c` are
// forbidden; the reading ones are sandboxed where `xargs echo <
// ~/.aws/credentials` is escalated (credential-access). runWrapper
// (wrappers.go) gives the inner command the input as argsIn and marks it
// viaXargs, but matchDestructiveXargs (rules_destructive.go) looks for
// -r only among the command's own words, and the input's known words are
// never appended to it, so neither an option (-rf), a command (env's,
// nice's, timeout's) nor sh's -c that the input supplies is seen; -a /
// --arg-file is only an option value skipped (argShort "a"), so its file
// is neither read as the input nor checked as a path.
//
// Severity: high (`rm -rf ~` judged sandboxed; a credential read judged
// sandboxed).
// Found by red-team round 47 (high). Fixed: xargs without -I appends its
// input's words (split as it splits them: -0, -d) to the command, and
// input only known at run time as a run-time word where the command runs
// what it is handed; -a FILE is the input, and judged as read
// (xargsinput.go).
func TestRedteam47XargsInput(t *testing.T) {
	rtAtLeast(t, rt47bShells(false), `echo ~ | xargs rm -rf`, Forbidden)                       // control
	rtAtLeast(t, rt47bShells(false), `printf 'rm -rf ~\n' | xargs -0 sh -c`, Forbidden)        // control
	rtAtLeast(t, rt47bShells(false), `xargs echo < ~/.aws/credentials`, Escalated)             // control
	rtAtLeast(t, rt47bShells(false), `printf 'rm -rf ~\n' > x; xargs -0 sh -c < x`, Forbidden) // control
	for _, tc := range []struct{ line, harmless string }{
		{`printf '%s\n' -rf ~ | xargs rm`, `printf '%s\n' -rf ~/victim | xargs rm`},
		{`printf '%s\n' rm -rf ~ | xargs env`, `printf '%s\n' rm -rf ~/victim | xargs env`},
		{`printf '%s\n' rm -rf ~ | xargs nice`, `printf '%s\n' rm -rf ~/victim | xargs nice`},
		{`printf '%s\n' rm -rf ~ | xargs timeout 9`, `printf '%s\n' rm -rf ~/victim | xargs timeout 9`},
		{`printf '%s\n' -c 'rm -rf ~' | xargs -d '\n' sh`, `printf '%s\n' -c 'rm -rf ~/victim' | xargs -d '\n' sh`},
		{`printf 'rm -rf ~\n' > x; xargs -0 -a x sh -c`, `printf 'rm -rf ~/victim\n' > x; xargs -0 -a x sh -c`},
	} {
		// Premise: the same line aimed at ~/victim (a directory with a
		// file in it) removes it.
		for _, sh := range rt47bShells(false) {
			if !rtHave(t, sh, "xargs") {
				continue
			}
			home, work := rt47bHome(t, "# rc\n")
			victim := filepath.Join(home, "victim")
			if err := os.MkdirAll(filepath.Join(victim, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			out := rt47bRun(t, sh, home, work, tc.harmless)
			if _, err := os.Stat(victim); !os.IsNotExist(err) {
				t.Fatalf("premise: %s -c %q did not remove ~/victim: %q", sh, tc.harmless, out)
			}
		}
		rtAtLeast(t, rt47bShells(false), tc.line, Forbidden)
	}
	for _, line := range []string{
		`xargs -a ~/.aws/credentials echo`,
		`xargs --arg-file ~/.aws/credentials echo`,
	} {
		if rtHave(t, "xargs") {
			home, work := rt47bHome(t, "# rc\n")
			if out := rt47bRun(t, "bash", home, work, line); !strings.Contains(out, rt47bSecret) {
				t.Fatalf("premise: %q did not print the fake secret: %q", line, out)
			}
		}
		rtAtLeast(t, rt47bShells(false), line, Escalated)
	}
	// Legitimate: the everyday forms keep working.
	rtBelow(t, `printf '%s\n' a.txt b.txt | xargs rm -f`, Escalated)
	rtBelow(t, `git ls-files -z | xargs -0 wc -l`, Escalated)
	rtBelow(t, `xargs -a files.txt wc -l`, Escalated)
}
