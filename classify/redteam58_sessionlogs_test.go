package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam58SessionLogs: script(1) writes everything the session
// prints to its typescript file (the operand, or -O/--log-out FILE;
// truncated unless -a), and screen -L writes a window's output to its
// -Logfile. Neither file is taken as a write target, and script is a
// transparent wrapper, so a harmless -c command makes the line allow:
//
//	script -qc true /etc/hosts                                           allow
//	script -q -O /etc/hosts -c true                                      allow
//	script -qc true ~/.ssh/authorized_keys                               allow
//	script -qc 'echo "rm -rf ~/.ssh;"' ~/.bashrc                         allow
//	screen -L -Logfile ~/.bashrc -dmS t sh -c 'echo "rm -rf ~/.ssh;"'    sandboxed
//	screen -L -Logfile /etc/hosts -dmS t true                            sandboxed
//
// overwrite a system file, the user's authorized keys, or put `rm -rf
// ~/.ssh;` on a line of ~/.bashrc (run by the next interactive bash:
// the header line fails on a redirection, the CR after `;` is a command
// not found), as `echo x > /etc/hosts`, `echo x >
// ~/.ssh/authorized_keys` and `echo 'rm -rf ~/.ssh;' >> ~/.bashrc` are
// judged (forbidden).
//
// Why: wrappers.go gives script (argShort "ETIOBmo", optOnly) and screen
// as transparent wrappers: their options are skipped and only the
// command is judged; writetargets.go has no entry for script's
// typescript operand, -O/--log-out, -I/--log-in, -B/--log-io, -T/--log-
// timing, nor screen's -Logfile, so neither output-redirect-system nor
// the rc file's new text sees them.
//
// Severity: high (a write to /etc and ~/.ssh judged allow).
// Found by red-team round 58.
// Fixed: sessionlogs.go sessionLogs (called from wrappers.go runWrapper):
// script's typescript operand, -O/--log-out, -B/--log-io (the payload's
// output), -I/--log-in, -T/--log-timing, -tFILE (unknown text) are writes,
// judged as a redirection of the wrapper (toolWrite), the text where it
// lands in an rc file; the same for the log options of the other wrappers,
// a table (wrapperLogs): screen -Logfile, strace/ltrace -o, time -o,
// valgrind --log-file, xvfb-run -e/-f, srun -o/-e, start-stop-daemon
// --output, memusage -d/-p, parallel --joblog, rlwrap -l/-H, fakeroot -s,
// logsave's LOGFILE.
func TestRedteam58SessionLogs(t *testing.T) {
	rt58aNeed(t, "bsdutils (script), screen", "bash", "script", "screen")
	scriptRc := `script -qc 'echo "rm -rf ~/.ssh;"' ~/.bashrc`
	screenRc := `screen -L -Logfile ~/.bashrc -dmS t sh -c 'echo "rm -rf ~/.ssh;"'`
	// Premise: each plants the line in ~/.bashrc, which an interactive
	// bash then runs.
	for _, l := range []string{scriptRc, screenRc + `; sleep 2`} {
		home, work := rt58aHome(t)
		if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := rt58aRun(t, home, work, l)
		out += rt58aRun(t, home, work, `bash -ic true`)
		if !rt58aGone(home) {
			b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
			t.Fatalf("premise: %q then bash -i did not remove ~/.ssh (.bashrc %q, output %q)", l, b, out)
		}
	}
	// Premise: the file operand and -O are overwritten (files of the
	// test's, standing for /etc/hosts and ~/.ssh/authorized_keys).
	for _, l := range []string{`script -qc true hosts`, `script -q -O hosts -c true`} {
		home, work := rt58aHome(t)
		f := filepath.Join(work, "hosts")
		if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rt58aRun(t, home, work, l)
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "localhost") {
			t.Fatalf("premise: %q did not overwrite its file (now %q)", l, b)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo x > /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo x > ~/.ssh/authorized_keys`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh;' >> ~/.bashrc`, Forbidden)
	// The attack.
	for _, l := range []string{`script -qc true /etc/hosts`, `script -q -O /etc/hosts -c true`,
		`script -qc true ~/.ssh/authorized_keys`, `screen -L -Logfile /etc/hosts -dmS t true`} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	rtAtLeast(t, []string{"bash", "sh"}, scriptRc, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, screenRc, Escalated)
	// Controls: recording a build in the working tree.
	rtBelow(t, `script -qc 'make test' build.log`, Escalated)
	rtBelow(t, `screen -L -Logfile build.log -dmS b make`, Escalated)
}
