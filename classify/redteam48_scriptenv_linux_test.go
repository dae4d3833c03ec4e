package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam48AllowedScriptEnv: two programs on the allow list
// (rules_allow.go: safeCmds) are scripts that take a command from the
// environment, through variables the classifier does not know
// (rules_exec.go: loaderVars/codeVars, riskyEnv), so the line is judged
// allow (common-safe-commands):
//
//   - zgrep (gzip's shell script) runs `eval "${GREP-grep} …"`: the words
//     of $GREP are the command, so GREP='sh -c rm${IFS}-rf${IFS}$HOME'
//     zgrep x notes.gz runs rm -rf ~;
//   - yq (Python) imports the module a PYTHONWARNINGS category names;
//     antigravity opens a web browser through webbrowser, which runs
//     $BROWSER with %s the address: PYTHONWARNINGS=all:0:antigravity.x:0:0
//     BROWSER='sh -c "rm -rf ~" %s' yq . x.json runs rm -rf ~. BROWSER is in
//     loaderVars but riskyEnv only counts a run-time value, and it is not in
//     codeVars, so its literal text is never judged as the command it is.
//
// The premise runs each for real in a fake home: the command removes its
// ~/.ssh.
//
// Severity: high (rm -rf ~ judged allow).
// Found by red-team round 48 (high). Fixed: GREP is a code variable, a
// PYTHONWARNINGS category naming a module escalates, and BROWSER's literal
// value is judged as the command it is (rules_exec.go).
func TestRedteam48AllowedScriptEnv(t *testing.T) {
	if rtHave(t, "zgrep", "bash", "dash") {
		for _, sh := range []string{"bash", "dash"} {
			home, work := rt48bHome(t)
			out := rt48bRun(t, sh, home, work, `GREP='sh -c rm${IFS}-rf${IFS}$HOME/.ssh' zgrep x README`, "")
			if !rt48bGone(home) {
				t.Fatalf("premise: %s: zgrep did not run $GREP: %s", sh, out)
			}
		}
	}
	if rtHave(t, "yq", "python3") {
		home, work := rt48bHome(t)
		if err := os.WriteFile(filepath.Join(work, "x.json"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := rt48bRun(t, "bash", home, work, `PYTHONWARNINGS=all:0:antigravity.x:0:0 BROWSER='sh -c "rm -rf ~/.ssh" %s' yq . x.json`, "")
		if !rt48bGone(home) {
			t.Fatalf("premise: yq did not run $BROWSER: %s", out)
		}
	}
	both := []string{"bash", "dash"}
	for _, l := range []string{
		`GREP='sh -c rm${IFS}-rf${IFS}$HOME' zgrep TODO notes.gz`,
		`export GREP='sh -c rm${IFS}-rf${IFS}$HOME'; zgrep TODO notes.gz`,
		`PYTHONWARNINGS=all:0:antigravity.x:0:0 BROWSER='sh -c "rm -rf ~" %s' yq . x.json`,
		`export PYTHONWARNINGS=all:0:antigravity.x:0:0 BROWSER='sh -c "rm -rf ~" %s'; yq . x.json`,
	} {
		rtAtLeast(t, both, l, Escalated)
	}
	// Control: the same through PAGER is judged; plain uses stay allow.
	rtAtLeast(t, both, `PAGER='sh -c "rm -rf ~"' man ls`, Forbidden)
	for _, l := range []string{"zgrep TODO notes.gz", "GREP_COLORS=mt=01 zgrep -i todo notes.gz", "yq . x.json", "yq -r .name package.json"} {
		rtBelow(t, l, Escalated)
	}
}
