package classify

import "testing"

// TestRedteam58ScreenLogfile: screen's -Logfile FILE is one option with a
// value (screen 4.6 and later), but the classifier reads it as the
// cluster -L -o -g -f -i -l "e" and takes FILE for the program, so the
// command screen really runs is never judged:
//
//	screen -dmS t -Logfile x.log rm -rf ~                  sandboxed
//	screen -dm -Logfile x.log sh -c 'rm -rf ~'             sandboxed
//	screen -dmS t -Logfile x.log rm -rf ~/.ssh             escalated (credential-access, from the path only)
//
// delete the home (~/.ssh), as `screen -dmS t rm -rf ~` (forbidden) does.
//
// Why: wrappers.go gives screen argShort "SpcTtelhsXrRx" and no long
// options; wrapSpec.unwrap splits -Logfile as a short-option cluster
// whose -l takes the rest ("e") as its value, so the next word (the log
// file) is taken as the command.
//
// Severity: high (rm -rf ~ judged sandboxed).
// Found by red-team round 58.
// Fixed: wrappers.go: a wrapSpec's dashLong lists long options written
// with one dash that take a value; screen's -Logfile is one, and -l (a
// flag: login mode) no longer takes one.
func TestRedteam58ScreenLogfile(t *testing.T) {
	rt58aNeed(t, "screen", "bash", "screen")
	// Premise: screen runs the words after the log file (the fake home's
	// ~/.ssh stands for ~).
	rt58aPremise(t, `screen -dmS t -Logfile x.log rm -rf ~/.ssh; sleep 2`, "")
	rt58aPremise(t, `screen -dm -Logfile x.log sh -c 'rm -rf ~/.ssh'; sleep 2`, "")
	// Control of the premise: the same session running ls.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `screen -dmS t -Logfile x.log ls ~/.ssh; sleep 2`); rt58aGone(home) {
		t.Fatalf("premise: screen running ls removed ~/.ssh (output %q)", out)
	}
	// Reference.
	rtAtLeast(t, []string{"bash"}, `screen -dmS t rm -rf ~`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `screen -dmS t rm -rf ~/.ssh`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, `screen -dmS t -Logfile x.log rm -rf ~`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `screen -dm -Logfile x.log sh -c 'rm -rf ~'`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `screen -dmS t -Logfile x.log rm -rf ~/.ssh`, Forbidden)
	// Control.
	rtBelow(t, `screen -dmS b -L -Logfile build.log make`, Escalated)
}
