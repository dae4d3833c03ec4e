package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam48SortDashDashValue: sort is allowed unless it writes a file
// with -o/--output (rules_allow.go: matchCommonSafe, `!u.hasFlag("o",
// "--output")`). hasFlag (unit.go: findFlag) stops at the first "--", as
// if it ended the options, but a "--" that is the value of an option taking
// one does not: getopt hands it to the option, and what follows is still
// options. So
//
//	sort -T -- -o ~/.bashrc notes.txt
//
// (-T's temporary directory is "--") overwrites ~/.bashrc with notes.txt,
// and is judged allow (common-safe-commands), while `sort -o ~/.bashrc
// notes.txt` is sandboxed. The write-target code (writetargets.go:
// optValue) does see this -o, so known text is still judged (`<<< 'rm -rf
// ~'` is forbidden), but a file's text is not, and the line is allow.
//
// The premise runs it for real in a fake home with notes.txt holding
// `rm -rf ~/.ssh`, then starts an interactive bash there: ~/.ssh is gone.
//
// Severity: high (an rc file overwritten, judged allow).
// Found by red-team round 48 (high). Fixed: a flag looked for as a danger
// is looked for past a -- that may be the value of the option before it
// (findFlag).
func TestRedteam48SortDashDashValue(t *testing.T) {
	if !rtHave(t, "sort", "bash", "dash") {
		t.Skip("sort missing")
	}
	for _, sh := range []string{"bash", "dash"} {
		home, work := rt48bHome(t)
		if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("rm -rf ~/.ssh\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := rt48bRun(t, sh, home, work, `sort -T -- -o ~/.bashrc notes.txt`, "")
		if rt48bGone(home) {
			t.Fatalf("premise: %s: sort itself removed ~/.ssh: %s", sh, out)
		}
		rt48bRun(t, "bash", home, work, "bash -i -c true", "")
		if !rt48bGone(home) {
			rc, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
			t.Fatalf("premise: %s: sort -T -- -o did not write ~/.bashrc (%q): %s", sh, rc, out)
		}
	}
	both := []string{"bash", "dash"}
	for _, l := range []string{
		`sort -T -- -o ~/.bashrc notes.txt`,
		`sort -T -- -o ~/.bash_aliases notes.txt`,
		`sort -T -- --output=$HOME/.profile notes.txt`,
		`sort -uT -- -o ~/.config/autostart/x.desktop notes.txt`,
	} {
		rtAtLeast(t, both, l, Sandboxed)
	}
	// Control: the plain spelling is not allowed; sorting stays allow.
	rtAtLeast(t, both, `sort -o ~/.bashrc notes.txt`, Sandboxed)
	for _, l := range []string{"sort notes.txt", "sort -T /tmp -u notes.txt", "sort -- -file-", "sort -k2 -t, data.csv"} {
		rtBelow(t, l, Sandboxed)
	}
}
