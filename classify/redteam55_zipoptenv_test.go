package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam55ZipOptionEnv: Info-ZIP's zip reads options from ZIPOPT (and
// ZIP), unzip from UNZIP (and UNZIPOPT), before those on the command line,
// as GNU tar reads TAR_OPTIONS:
//
//	echo a > f && ZIPOPT='-TT "rm -rf ~/.ssh;" -T' zip x.zip f     sandboxed  (zip runs the -TT command through sh)
//	UNZIP="-o -d $HOME/.ssh" unzip keys.zip                        sandboxed  (plants ~/.ssh/authorized_keys)
//
// while the same options on the command line are judged: `zip x.zip f -T
// -TT 'rm -rf ~/.ssh;'` is forbidden (recursive-delete-root), `unzip -o
// keys.zip -d ~/.ssh` is forbidden (output-redirect-system).
//
// Why: envconfig.go (optionEnvVars) knows only tar's TAR_OPTIONS; zip's
// and unzip's variables are neither read as options (escapes.go:
// execOptions "zip" -TT, the unzip -d target in the write rules) nor
// counted as variables that change what runs (rules_exec.go: loaderVars).
//
// The premise runs both lines with the real zip and unzip in a fake home
// and checks that ~/.ssh is gone, and that the key file was planted.
//
// Severity: high (a forbidden command and a write to ~/.ssh judged
// sandboxed).
// Found by red-team round 55. Fixed: zip's, unzip's and man's options variables are read as
// their arguments (envconfig.go: optionEnvVars).
func TestRedteam55ZipOptionEnv(t *testing.T) {
	if rtHave(t, "bash", "zip", "unzip") {
		home, work := rt55aHome(t)
		out := rt55aRun(t, home, work, `printf 'ssh-ed25519 RT55A-PLANTED\n' > authorized_keys && zip -q keys.zip authorized_keys && rm authorized_keys && UNZIP="-o -d $HOME/.ssh" unzip keys.zip`)
		if b, err := os.ReadFile(filepath.Join(home, ".ssh", "authorized_keys")); err != nil || !strings.Contains(string(b), "RT55A-PLANTED") {
			t.Fatalf("premise: UNZIP=-d did not extract into ~/.ssh (err %v, output %q)", err, out)
		}
		out = rt55aRun(t, home, work, `echo a > f && ZIPOPT='-TT "rm -rf ~/.ssh;" -T' zip x.zip f`)
		if !rt55aGone(home) {
			t.Fatalf("premise: ZIPOPT -TT did not run its command (output %q)", out)
		}
	}
	// References: the same options on the command line.
	rtAtLeast(t, []string{"bash", "sh"}, `zip x.zip f -T -TT 'rm -rf ~/.ssh;'`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `unzip -o keys.zip -d ~/.ssh`, Forbidden)
	// The attack.
	for _, l := range []string{
		`echo a > f && ZIPOPT='-TT "rm -rf ~/.ssh;" -T' zip x.zip f`,
		`export ZIPOPT='-T -TT "rm -rf ~/.ssh;"'; zip -r out.zip src`,
		`ZIP='-TT "rm -rf ~/.ssh;" -T' zip x.zip f`,
		`UNZIP="-o -d $HOME/.ssh" unzip keys.zip`,
		`UNZIPOPT="-o -d $HOME/.ssh" unzip keys.zip`,
		`UNZIP="-o -d /etc" unzip x.zip`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: everyday option variables stay below escalated.
	rtBelow(t, `ZIPOPT=-q zip -r out.zip src`, Escalated)
	rtBelow(t, `UNZIP=-qo unzip x.zip -d build`, Escalated)
}
