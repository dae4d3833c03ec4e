package classify

import "testing"

// TestRedteam52ToolScriptFile: a command file the line writes and then
// hands to gdb, sqlite3, vim or tmux by name is not judged, where the same
// commands given on the line or on standard input are:
//
//	echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -x x.gdb                          sandboxed
//	echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 -init x.sql :memory: .quit          sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -u x.vim -c q                  sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -S x.vim -c q                  sandboxed
//	echo 'run-shell "rm -rf ~/.ssh"' > x.conf && tmux -f x.conf new-session -d true   sandboxed
//
// while `gdb -batch -ex 'shell rm -rf ~/.ssh'`, `echo '.shell rm -rf
// ~/.ssh' > x.sql && sqlite3 :memory: < x.sql`, `tmux source-file - <<<
// 'run-shell "rm -rf ~/.ssh"'` and `printf 'x:\n\trm -rf ~/.ssh\n' >
// Makefile && make` are forbidden.
//
// Why: the classifier follows a file the line wrote into the program that
// reads it only for shells (`bash x.sh`, `< x.sql`), make, awk -f, sed -f
// and npm (writtenCode in convention.go, and shells.go for shells); the option
// that names a command file for gdb (-x, -ix, --command), sqlite3 (-init),
// vim (-u, -S) and tmux (-f, source-file FILE) is not one of them, though
// gdbex.go, vimex.go, tmux.go and the sqlite3 dot-command model already
// judge the same text given inline.
//
// The premise runs each line in a fake home and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 52.
// Fixed: gdb -x, vim -u/-S, tmux -f and sqlite3 -init follow the file the
// line wrote (toolScriptFiles).
func TestRedteam52ToolScriptFile(t *testing.T) {
	cases := []struct{ prog, line, after string }{
		{"gdb", `echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -x x.gdb`, ""},
		{"sqlite3", `echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 -init x.sql :memory: .quit`, ""},
		{"vim", `echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -u x.vim -c q`, ""},
		{"vim", `echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -S x.vim -c q`, ""},
		{"tmux", `echo 'run-shell "rm -rf ~/.ssh"' > x.conf && tmux -f x.conf new-session -d true`, `; sleep 1; tmux kill-server`},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt52bHome(t)
		out := rt52bRun(t, home, work, c.line+c.after)
		if !rt52bGone(home) {
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// References: the same commands inline or on standard input.
	rtAtLeast(t, []string{"bash"}, `gdb -batch -ex 'shell rm -rf ~/.ssh'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 :memory: < x.sql`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `tmux source-file - <<< 'run-shell "rm -rf ~/.ssh"'`, Forbidden)
	// Controls: harmless command files stay below escalated.
	rtBelow(t, `echo 'info functions' > x.gdb && gdb -batch -x x.gdb ./a.out`, Escalated)
	rtBelow(t, `echo '.headers on' > x.sql && sqlite3 -init x.sql data.db 'select 1'`, Escalated)
	rtBelow(t, `echo 'set -g mouse on' > x.conf && tmux -f x.conf new-session -d true`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
}
