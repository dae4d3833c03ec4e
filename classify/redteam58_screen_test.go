package classify

import "testing"

// TestRedteam58Screen: GNU screen runs commands from its start-up file
// (~/.screenrc, $SCREENRC, -c FILE: `screen CMD`, `exec`, `stuff` …), and
// a running session takes commands from `screen -X`: `stuff` types keys
// into the shell of a window, `eval` runs screen commands. So
//
//	echo 'screen sh -c "rm -rf ~/.ssh"' >> ~/.screenrc                         sandboxed
//	echo 'screen sh -c "rm -rf ~/.ssh"' > x.rc; screen -c x.rc -dmS t true       sandboxed
//	echo 'screen sh -c "rm -rf ~/.ssh"' > x.rc; SCREENRC=x.rc screen -dmS t true sandboxed
//	screen -S t -X stuff 'rm -rf ~/.ssh\n'                                       sandboxed
//	screen -S t -X eval 'screen sh -c "rm -rf ~/.ssh"'                           sandboxed
//	screen -c x.rc -dmS t ls                                                     allow
//
// remove ~/.ssh (the first at the user's next screen, outside any
// sandbox; the -X forms in a session the user or the line started), as
// their tmux counterparts (`echo 'run-shell "rm -rf ~/.ssh"' >>
// ~/.tmux.conf`, `tmux send-keys -t s 'rm -rf ~/.ssh' Enter`: forbidden)
// and `screen -S t -X screen sh -c 'rm -rf ~/.ssh'` (forbidden) are
// judged; the last runs a start-up file the classifier does not see and
// is still allow (tmux -f x.conf new -d ls is sandboxed).
//
// Why: wrappers.go has screen as a transparent wrapper (argShort
// "SpcTtelhsXrRx"): the words after its options are judged as a command,
// nothing else. toolscripts.go toolScripts has no screen entry (start-up
// files judged when written, -c/SCREENRC files when read), tmux.go's
// send-keys/if-shell handling has no counterpart for screen -X stuff or
// eval (`-X` takes "stuff" or "eval" as its value and the keys as the
// program word), and a -c FILE that the line did not write does not keep
// the command from allow.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed); low for the allow.
// Found by red-team round 58.
// Fixed: screencmds.go: screen's commands (screen, exec, stuff, eval,
// bind/bindkey, at, source, shell, logfile/hardcopy/writebuf) are judged
// as what they run or write, from screen -X and from start-up files:
// toolscripts.go lists screen (~/.screenrc, /etc/screenrc, -c FILE, and a
// toolScript's new env field: SCREENRC); a -c FILE or SCREENRC the line
// did not write judges the screen command itself (sandboxed), as tmux -f.
func TestRedteam58Screen(t *testing.T) {
	rt58aNeed(t, "screen", "bash", "screen")
	const rc = `'screen sh -c "rm -rf ~/.ssh"'`
	plant := `echo ` + rc + ` >> ~/.screenrc`
	withC := `echo ` + rc + ` > x.rc; screen -c x.rc -dmS t true`
	withEnv := `echo ` + rc + ` > x.rc; SCREENRC=x.rc screen -dmS t true`
	stuff := `screen -S t -X stuff 'rm -rf ~/.ssh\n'`
	eval := `screen -S t -X eval 'screen sh -c "rm -rf ~/.ssh"'`
	// Premises (each waits for the detached session, then ends it).
	const wait = `; sleep 2; screen -S t -X quit; true`
	rt58aPremise(t, plant, `screen -dmS t true`+wait)
	rt58aPremise(t, withC+wait, "")
	rt58aPremise(t, withEnv+wait, "")
	const session = `screen -dmS t bash --norc --noprofile; sleep 1; `
	rt58aPremise(t, session+stuff+wait, "")
	rt58aPremise(t, session+eval+wait, "")
	// Control of the premise: a session with nothing typed keeps ~/.ssh.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, session+`screen -S t -X stuff 'ls\n'`+wait); rt58aGone(home) {
		t.Fatalf("premise: a session typing ls removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `tmux send-keys -t s 'rm -rf ~/.ssh' Enter`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `screen -S t -X screen sh -c 'rm -rf ~/.ssh'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `tmux -f x.conf new -d ls`, Sandboxed)
	// The attack.
	for _, l := range []string{plant, withC, withEnv, stuff, eval} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// A start-up file the line did not write: not allow.
	home, work = rt58aHome(t)
	rt58aRun(t, home, work, `echo `+rc+` > x.rc`)
	rt58aRun(t, home, work, `screen -c x.rc -dmS t ls`+wait)
	if !rt58aGone(home) {
		t.Fatalf("premise: screen -c x.rc -dmS t ls did not run x.rc")
	}
	rtAtLeast(t, []string{"bash", "sh"}, `screen -c x.rc -dmS t ls`, Sandboxed)
	// Controls.
	rtBelow(t, `screen -dmS build make`, Escalated)
	rtBelow(t, `echo 'defscrollback 10000' >> ~/.screenrc`, Escalated)
	rtBelow(t, `screen -S build -X quit`, Escalated)
}
