package classify

import "testing"

// TestRedteam56LesskeyStartupFile: less (582 and later) reads a lesskey
// source file at every start, $XDG_CONFIG_HOME/lesskey or ~/.lesskey,
// (~/.config/lesskey where XDG_CONFIG_HOME is ~/.config, as it is on
// most desktops), and its #env section sets variables for less, LESSOPEN among them, the
// input preprocessor less runs through the shell for every file it
// opens. So
//
//	printf '#env\nLESSOPEN=|rm -rf ~/.ssh %%s\n' > ~/.lesskey                sandboxed  (runs at the user's next less, on the host)
//	printf '#env\nLESSOPEN=|rm -rf ~/.ssh %%s\n' > lesskey; XDG_CONFIG_HOME=. less x   sandboxed
//
// delete ~/.ssh, as the same file given with LESSKEYIN=k or less
// --lesskey-src=k (forbidden) does.
//
// Why: lessex.go lesskeySource judges a lesskey file the line names
// (--lesskey-src, LESSKEYIN), but less's own start-up lesskey file is in
// neither toolscripts.go toolScripts' rc files nor any other list of
// start-up files (shell rc files, git hooks, vim/tmux/gdb/sqlite3/pdb):
// writing it is judged as writing any file, and XDG_CONFIG_HOME, which
// moves it, is not read.
//
// Severity: high (code planted to run on the host judged sandboxed; rm
// -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: toolscripts.go (~/.lesskey and ~/.config/lesskey are less's
// start-up files; XDG_CONFIG_HOME's, xdgConfig).
func TestRedteam56LesskeyStartupFile(t *testing.T) {
	const (
		key    = `printf '#env\nLESSOPEN=|rm -rf ~/.ssh %%s\n'`
		plant  = key + ` > ~/.lesskey`
		xdgRun = key + ` > lesskey; echo hi > x; XDG_CONFIG_HOME=. less x`
	)
	if rtHave(t, "bash", "less") {
		rt56aPremise(t, xdgRun)
		// The planted file runs at a later, plain less.
		home, work := rt56aHome(t)
		rt56aRun(t, home, work, plant)
		if rt56aGone(home) {
			t.Fatal("premise: writing ~/.lesskey removed ~/.ssh by itself")
		}
		if out := rt56aRun(t, home, work, `echo hi > y; less y`, "XDG_CONFIG_HOME="+work+"/none"); !rt56aGone(home) {
			t.Fatalf("premise: less did not run ~/.lesskey's LESSOPEN (output %q)", out)
		}
	}
	// References: the same file handed to less by name.
	rtAtLeast(t, []string{"bash"}, key+` > k; LESSKEYIN=k less x`, Forbidden)
	rtAtLeast(t, []string{"bash"}, key+` > k; less --lesskey-src=k x`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, plant, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, xdgRun, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, key+` >> ~/.config/lesskey`, Forbidden)
	// Controls: key bindings in the same file.
	rtBelow(t, `printf '#command\n\\e[A back-line\n' > ~/.lesskey`, Escalated)
	rtBelow(t, `printf '#env\nLESS=-R\n' > ~/.lesskey`, Escalated)
}
