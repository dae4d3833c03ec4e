package classify

import "testing"

// TestRedteam58Irbrc: irb runs its start-up file as Ruby at every start:
// $IRBRC, ~/.irbrc, $XDG_CONFIG_HOME/irb/irbrc and, in the working
// directory, .irbrc (irb 1.4's rc_file_generators). So
//
//	echo 'system("rm -rf ~/.ssh")' >> ~/.irbrc                               sandboxed
//	echo 'system("rm -rf ~/.ssh")' > .irbrc; irb                             sandboxed
//	echo 'system("rm -rf ~/.ssh")' > y.rb; IRBRC=y.rb irb                    sandboxed
//
// remove ~/.ssh (the first at the user's next irb, outside any sandbox),
// as `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, `echo 'run-shell "rm -rf
// ~/.ssh"' >> ~/.tmux.conf` (forbidden) and `… > y.rb; irb y.rb`
// (forbidden) are judged.
//
// Why: toolscripts.go toolScripts (the start-up files judged when
// written, and read when the tool then starts) has vim, tmux, gdb,
// sqlite3, pdb, perl's debugger and less, not irb; rules_exec.go
// riskyEnv does not list IRBRC.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: toolscripts.go lists irb (.irbrc, ~/.config/irb/irbrc,
// ~/.irb/irbrc, and IRBRC through the new env field) and pry (.pryrc,
// ~/.config/pry/pryrc, PRYRC), their text judged as Ruby (toolText case
// "ruby", with the written files it loads).
func TestRedteam58Irbrc(t *testing.T) {
	rt58aNeed(t, "ruby", "bash", "irb")
	const j = `system("rm -rf ~/.ssh")`
	homeRc := `echo '` + j + `' >> ~/.irbrc`
	cwdRc := `echo '` + j + `' > .irbrc; irb`
	envRc := `echo '` + j + `' > y.rb; IRBRC=y.rb irb`
	rt58aPremise(t, homeRc, `irb`)
	rt58aPremise(t, cwdRc, "")
	rt58aPremise(t, envRc, "")
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo '`+j+`' > y.rb; irb y.rb`, Forbidden)
	// The attack.
	for _, l := range []string{homeRc, cwdRc, envRc} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `echo 'IRB.conf[:SAVE_HISTORY] = 1000' >> ~/.irbrc`, Escalated)
	rtBelow(t, `irb`, Escalated)
}
