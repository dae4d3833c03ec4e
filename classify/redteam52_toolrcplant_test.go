package classify

import "testing"

// TestRedteam52ToolRcPlant: vim, tmux and gdb read a start-up file from the
// home at every start and run the commands in it, as bash runs ~/.bashrc:
//
//	echo 'call system("rm -rf ~/.ssh")' >> ~/.vimrc            sandboxed
//	echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf            sandboxed
//	echo 'shell rm -rf ~/.ssh' >> ~/.gdbinit                    sandboxed
//	(and ~/.vim/vimrc, ~/.config/tmux/tmux.conf, ~/.config/gdb/gdbinit)
//
// where `echo 'rm -rf ~/.ssh' >> ~/.bashrc` is forbidden and the same
// commands given to the tools on the line (`gdb -batch -ex 'shell rm -rf
// ~/.ssh'`, `tmux source-file - <<< 'run-shell …'`, `vim -c '!…'`) are
// forbidden too. The planted command runs outside the sandbox the next time
// the user opens an editor, a tmux session or a debugger.
//
// Why: runFile (escapes.go) lists the files a shell, git or cron runs later
// (shell rc files, .envrc, git hooks, cron, autostart) and writeText
// (call.go) judges only text written to those; the start-up files of vim
// (vimex.go models its ex commands), tmux (tmux.go models its command
// language) and gdb (gdbex.go) are not among them, so the written text is
// never handed to the models that already exist.
//
// The premise writes each line in a fake home, then starts the tool the way
// a user would (`vim -c q`, a detached tmux session, `gdb -batch`) and
// checks that ~/.ssh is gone.
//
// Severity: high (code that deletes ~/.ssh planted to run later, outside
// the sandbox, judged sandboxed).
// Found by red-team round 52.
// Fixed: the start-up files of vim, tmux, gdb and sqlite3 are judged as
// their commands (toolscripts.go: toolRcText).
func TestRedteam52ToolRcPlant(t *testing.T) {
	cases := []struct{ prog, line, start string }{
		{"vim", `echo 'call system("rm -rf ~/.ssh")' >> ~/.vimrc`, `vim -c q`},
		{"vim", `mkdir -p ~/.vim && echo 'call system("rm -rf ~/.ssh")' >> ~/.vim/vimrc`, `vim -c q`},
		{"tmux", `echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf`, `tmux -S "$TMPDIR/s" new-session -d 'sleep 2'; sleep 1; tmux -S "$TMPDIR/s" kill-server`},
		{"tmux", `mkdir -p ~/.config/tmux && echo 'run-shell "rm -rf ~/.ssh"' >> ~/.config/tmux/tmux.conf`, `tmux -S "$TMPDIR/s" new-session -d 'sleep 2'; sleep 1; tmux -S "$TMPDIR/s" kill-server`},
		{"gdb", `echo 'shell rm -rf ~/.ssh' >> ~/.gdbinit`, `gdb -batch -ex 'echo ok'`},
		{"gdb", `mkdir -p ~/.config/gdb && echo 'shell rm -rf ~/.ssh' >> ~/.config/gdb/gdbinit`, `gdb -batch -ex 'echo ok'`},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt52bHome(t)
		out := rt52bRun(t, home, work, c.line)
		if rt52bGone(home) {
			t.Fatalf("premise: %q itself removed ~/.ssh: %q", c.line, out)
		}
		out += rt52bRun(t, home, work, c.start)
		if !rt52bGone(home) {
			t.Fatalf("premise: after %q, %q did not remove ~/.ssh (output %q)", c.line, c.start, out)
		}
	}
	// References: the same text in a shell rc file, and given on the line.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `gdb -batch -ex 'shell rm -rf ~/.ssh'`, Forbidden)
	// Controls: everyday settings stay below escalated.
	rtBelow(t, `echo 'set number' >> ~/.vimrc`, Escalated)
	rtBelow(t, `echo 'set -g mouse on' >> ~/.tmux.conf`, Escalated)
	rtBelow(t, `echo 'set pagination off' >> ~/.gdbinit`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
}
