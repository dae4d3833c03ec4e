package classify

import "testing"

// TestRedteam54ToolScriptVariants: round 52 made gdb -x, vim -u/-S, tmux -f
// and sqlite3 -init follow a command file the line wrote, but other
// spellings that load the same file are still not followed, so the file's
// `rm -rf ~/.ssh` is never judged:
//
//	echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -command=x.gdb                 sandboxed
//	echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -ex 'source x.gdb'             sandboxed
//	echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 :memory: '.read x.sql'           sandboxed
//	echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 -cmd '.read x.sql' :memory: .quit sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -es -c 'source x.vim' -c q  sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -Nu x.vim -es -c q          sandboxed
//	echo 'call system("rm -rf ~/.ssh")' > Session.vim && vim -es -S -c q           sandboxed
//	echo 'run-shell "rm -rf ~/.ssh"' > x.conf && tmux new-session -d true \; source-file x.conf  sandboxed
//
// while `gdb -batch -x x.gdb`, `gdb -batch --command=x.gdb`, `sqlite3
// -init x.sql` and `vim -S x.vim` after the same write are forbidden.
//
// Why: toolscripts.go (toolScriptFiles) matches the file options by their
// exact spellings (-x, --command, -u, -S FILE, -f, -init): gdb's
// single-dash long form -command=F, vim's clustered -Nu F, and -S without a file (Session.vim) are missed; and a command that
// loads a file from inside the tool's own command language (gdb `source
// F`, vim `:source F`, sqlite3 `.read F`, tmux `source-file F`) is judged
// by gdbex.go/vimex.go/cliescapes.go/tmux.go as text, without following
// the file the line wrote.
//
// The premise runs each line in a fake home and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 54.
// Fixed: gdb -command= and source, vim :source, -Nu and -S alone
// (Session.vim), sqlite3 .read and tmux source-file follow the file the
// line wrote (toolscripts.go: sourcedFile).
func TestRedteam54ToolScriptVariants(t *testing.T) {
	cases := []struct{ prog, line, after string }{
		{"gdb", `echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -command=x.gdb`, ""},
		{"gdb", `echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -ex 'source x.gdb'`, ""},
		{"sqlite3", `echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 :memory: '.read x.sql'`, ""},
		{"sqlite3", `echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 -cmd '.read x.sql' :memory: .quit`, ""},
		{"vim", `echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -es -c 'source x.vim' -c q`, ""},
		{"vim", `echo 'call system("rm -rf ~/.ssh")' > x.vim && vim -Nu x.vim -es -c q`, ""},
		{"vim", `echo 'call system("rm -rf ~/.ssh")' > Session.vim && vim -es -S -c q`, ""},
		{"tmux", `echo 'run-shell "rm -rf ~/.ssh"' > x.conf && tmux new-session -d true \; source-file x.conf`, `; sleep 1; tmux kill-server`},
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
	// References: the spellings round 52 follows.
	rtAtLeast(t, []string{"bash"}, `echo 'shell rm -rf ~/.ssh' > x.gdb && gdb -batch -x x.gdb`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo '.shell rm -rf ~/.ssh' > x.sql && sqlite3 -init x.sql :memory: .quit`, Forbidden)
	// Controls: harmless command files stay below escalated.
	rtBelow(t, `echo 'info functions' > x.gdb && gdb -batch -command=x.gdb ./a.out`, Escalated)
	rtBelow(t, `echo '.headers on' > x.sql && sqlite3 data.db '.read x.sql'`, Escalated)
	rtBelow(t, `echo 'set number' > x.vim && vim -es -c 'source x.vim' -c q`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash"}, c.line, Escalated)
	}
}
