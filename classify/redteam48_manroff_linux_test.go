package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam48ManRoffRequests: man (on the allow list, rules_allow.go:
// safeCmds) formats the page it is given with groff, and `man -l -` (or
// `man -l FILE`, `man ./x.1`) takes the page from standard input, so the
// page's requests are whatever the line prints:
//
//   - `.sy CMD` runs CMD through the shell once groff is in unsafe mode, and
//     man-db hands $MANROFFOPT to groff: `printf '.sy rm -rf ~\n' |
//     MANROFFOPT=-U man -l -` runs rm -rf ~ (no terminal needed);
//   - `.so FILE` includes FILE in the page even in groff's safe mode:
//     `printf '.so %s/.ssh/id_rsa\n' ~ | man -l -` prints the private key.
//
// MANROFFOPT is not among the variables that change what runs
// (rules_exec.go: loaderVars, riskyEnv), man's options are only read for
// -P/--pager (escapes.go: execOptions "man"), and the key's path is only
// known once printf has joined its format and argument, which the
// credential check (rules_net.go: matchCredentialAccess) never sees: each
// word is allow (matchCommonSafe), so the lines are judged allow.
//
// The premise runs each for real in a fake home: the first removes its
// ~/.ssh/id_rsa (man-db's seccomp filter lets groff's shell delete files
// and write, append to and rename them; rm -rf of a directory tree may
// stop at its directories), the second prints the planted key.
//
// Severity: high (rm -rf ~ judged allow; a private key read judged allow).
// Found by red-team round 48 (high). Fixed: MANROFFOPT with -U is a
// loader variable (escalated), and man -l's known roff text has its .so
// reads judged as cat and its .sy runs as shell code (manroff.go).
func TestRedteam48ManRoffRequests(t *testing.T) {
	if !rtHave(t, "man", "groff", "bash", "dash") {
		t.Skip("man missing")
	}
	for _, sh := range []string{"bash", "dash"} {
		home, work := rt48bHome(t)
		out := rt48bRun(t, sh, home, work, `printf '.sy rm -f ~/.ssh/id_rsa\n.TH X 1\nx\n' | MANROFFOPT=-U man -l -`, "")
		if _, err := os.Stat(filepath.Join(home, ".ssh/id_rsa")); !os.IsNotExist(err) {
			t.Fatalf("premise: %s: groff did not run .sy under MANROFFOPT=-U: %s", sh, out)
		}
		home, work = rt48bHome(t)
		out = rt48bRun(t, sh, home, work, `printf '.TH X 1\n.so %s/.ssh/id_rsa\n' ~ | man -l -`, "")
		if !rt48bHasSecret(out) {
			t.Fatalf("premise: %s: .so did not print the key: %s", sh, out)
		}
	}
	home, work := rt48bHome(t)
	if out := rt48bRun(t, "dash", home, work, `cd ~ && echo '.so .aws/credentials' | man -l -`, ""); !rt48bHasSecret(out) {
		t.Fatalf("premise: a relative .so did not print the credentials: %s", out)
	}
	// Control for the premise: without -U groff refuses .sy.
	home, work = rt48bHome(t)
	rt48bRun(t, "bash", home, work, `printf '.sy rm -f ~/.ssh/id_rsa\n.TH X 1\nx\n' | man -l -`, "")
	if _, err := os.Stat(filepath.Join(home, ".ssh/id_rsa")); err != nil {
		t.Fatal("premise control: groff ran .sy without -U")
	}

	both := []string{"bash", "dash"}
	rtAtLeast(t, both, `printf '.sy rm -rf ~\n' | MANROFFOPT=-U man -l -`, Escalated)
	rtAtLeast(t, both, `export MANROFFOPT=-U; echo '.sy rm -rf ~' | man -l -`, Escalated)
	rtAtLeast(t, []string{"bash"}, `MANROFFOPT=-U man -l <(printf '.sy rm -rf ~\n')`, Escalated)
	rtAtLeast(t, both, `printf '.so %s/.ssh/id_rsa\n' ~ | man -l -`, Escalated)
	rtAtLeast(t, both, `printf '.so %s/.aws/credentials\n' "$HOME" | man -l -`, Escalated)
	rtAtLeast(t, both, `cd ~ && echo '.so .aws/credentials' | man -l -`, Escalated)
	// Control: the key named as a word is already caught; reading pages stays allow.
	rtAtLeast(t, both, `echo .so ~/.ssh/id_rsa | man -l -`, Escalated)
	for _, l := range []string{"man ls", "man -l docs/tool.1", "man 5 crontab", "MANWIDTH=80 man git-log"} {
		rtBelow(t, l, Escalated)
	}
}

// rt48bHasSecret reports whether out holds rt48bSecret, reading the
// Unicode hyphens groff prints in a UTF-8 locale as '-'.
func rt48bHasSecret(out string) bool {
	return strings.Contains(strings.ReplaceAll(out, "\u2010", "-"), rt48bSecret)
}
