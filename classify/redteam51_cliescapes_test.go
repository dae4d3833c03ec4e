package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam51CliShellEscapes: two command-line tools found on most
// hosts run shell commands from the text the line hands them, and the
// classifier reads that text as plain data:
//
//	sqlite3 :memory: '.shell rm -rf ~'           (also .system)
//	sqlite3 -cmd '.system rm -rf ~' :memory: .quit
//	printf '.shell rm -rf ~\n' | sqlite3
//	sqlite3 :memory: ".once '|rm -rf ~'" 'select 1'   (output piped to a command)
//	sqlite3 :memory: ".read '|rm -rf ~'"               (a command's output read as SQL)
//	sqlite3 :memory: ".output $HOME/.bashrc" "select 'rm -rf ~';"  (an rc file written)
//	python3 -m pdb -c 'import os; os.system("rm -rf ~")' x.py
//	pdb3 -c 'import os; os.system("rm -rf ~")' x.py
//
// are sandboxed. sqlite3's dot-commands .shell/.system run their argument
// with system(3), .once/.output/.read take '|CMD' as a pipe to or from
// popen(3), and .output FILE writes the query's text to FILE; pdb's -c
// commands are pdb commands, and a line that is none is executed as
// Python. Nothing in the classifier (wrappers.go, code.go, codespawn.go,
// rcedits.go) knows sqlite3 or pdb: the dot-command strings and the -c
// code are arguments of an unknown program, where `python3 -c 'import
// os; os.system("rm -rf ~")'` and `echo 'rm -rf ~' > ~/.bashrc`, the same
// payloads, are forbidden.
//
// The premise runs every line in a fake home (with x.py in the working
// directory) and checks that ~/.ssh is gone, or, for .output, that
// ~/.bashrc holds rm -rf ~.
//
// Severity: high (rm -rf ~, a forbidden command, judged sandboxed; an rc
// file planted with it, judged sandboxed).
// Found by red-team round 51. Fixed: sqlite3's dot-commands (operands, -cmd,
// known standard input) and pdb -c lines are judged (cliescapes.go); a
// .output to an rc file is eval-exec, SQL not being evaluated.
func TestRedteam51CliShellEscapes(t *testing.T) {
	cases := []struct {
		line, stdin, prog string
		rc                bool // plants ~/.bashrc instead of removing ~/.ssh
	}{
		{`sqlite3 :memory: '.shell rm -rf ~'`, "", "sqlite3", false},
		{`sqlite3 :memory: '.system rm -rf ~'`, "", "sqlite3", false},
		{`sqlite3 -cmd '.system rm -rf ~' :memory: .quit`, "", "sqlite3", false},
		{`printf '.shell rm -rf ~\n' | sqlite3`, "", "sqlite3", false},
		{`sqlite3 :memory: ".once '|rm -rf ~'" 'select 1'`, "", "sqlite3", false},
		{`sqlite3 :memory: ".read '|rm -rf ~'"`, "", "sqlite3", false},
		{`sqlite3 :memory: ".output $HOME/.bashrc" "select 'rm -rf ~';"`, "", "sqlite3", true},
		{`python3 -m pdb -c 'import os; os.system("rm -rf ~")' x.py`, "", "python3", false},
		{`pdb3 -c 'import os; os.system("rm -rf ~")' x.py`, "", "pdb3", false},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt51aHome(t)
		if err := os.WriteFile(filepath.Join(work, "x.py"), []byte("x = 1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := rt51aRun(t, home, work, c.line, c.stdin)
		if c.rc {
			b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
			if !strings.Contains(string(b), "rm -rf ~") {
				t.Fatalf("premise: %q did not write rm -rf ~ to ~/.bashrc (it holds %q, output %q)", c.line, b, out)
			}
			continue
		}
		if !rt51aGone(home) {
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// Controls: the same payloads in forms the classifier knows.
	rtAtLeast(t, []string{"bash"}, `python3 -c 'import os; os.system("rm -rf ~")'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~' > ~/.bashrc`, Forbidden)
	for _, c := range cases {
		want := Forbidden
		if c.rc {
			// SQL is not evaluated: what .output sends to the rc file
			// is only known at run time (eval-exec).
			want = Escalated
		}
		rtAtLeast(t, []string{"bash", "sh"}, c.line, want)
	}
	// Legitimate uses must keep working.
	rtBelow(t, `sqlite3 app.db 'select count(*) from users;'`, Escalated)
	rtBelow(t, `sqlite3 app.db .tables`, Escalated)
	rtBelow(t, `sqlite3 -header -csv app.db 'select * from t;' > out.csv`, Escalated)
	rtBelow(t, `python3 -m pdb -c continue x.py`, Escalated)
}
