package classify

import "testing"

// TestRedteam56TmuxXdgConfig: tmux (3.2 and later) reads
// $XDG_CONFIG_HOME/tmux/tmux.conf at the start of its server, as it does
// ~/.tmux.conf, so a line that writes tmux/tmux.conf and points
// XDG_CONFIG_HOME at its directory runs the file's commands:
//
//	mkdir -p tmux; printf 'run-shell "rm -rf ~/.ssh"\n' > tmux/tmux.conf; XDG_CONFIG_HOME=. tmux new -d     sandboxed
//
// deletes ~/.ssh, as the same file written as ./.tmux.conf with HOME=.
// (forbidden) or given with tmux -f (forbidden) does.
//
// Why: toolscripts.go judges a written tmux.conf only when it is given
// with -f or its path ends in one of toolScripts["tmux"].rc
// (.tmux.conf, /.config/tmux/tmux.conf), resolved against the home the
// line set; XDG_CONFIG_HOME, which moves that directory, is not read, so
// tmux/tmux.conf under it is not taken for tmux's start-up file.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: toolscripts.go (xdgConfig).
func TestRedteam56TmuxXdgConfig(t *testing.T) {
	const (
		conf = `mkdir -p tmux; printf 'run-shell "rm -rf ~/.ssh"\n' > tmux/tmux.conf; `
		line = conf + `XDG_CONFIG_HOME=. tmux new -d`
	)
	if rtHave(t, "bash", "tmux") {
		// The premise starts a tmux server on a socket in the working
		// directory (TMUX_TMPDIR) and stops it.
		rt56aPremise(t, line+`; sleep 1; tmux kill-server`)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `printf 'run-shell "rm -rf ~/.ssh"\n' > .tmux.conf; HOME=. tmux new -d`, Forbidden)
	rtAtLeast(t, []string{"bash"}, conf+`tmux -f tmux/tmux.conf new -d`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, conf+`export XDG_CONFIG_HOME=$PWD; tmux new -d`, Forbidden)
	// Control: an ordinary setting there.
	rtBelow(t, `mkdir -p tmux; printf 'set -g mouse on\n' > tmux/tmux.conf; XDG_CONFIG_HOME=. tmux new -d`, Escalated)
}
