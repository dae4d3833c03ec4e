package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam56PagerWrappedShell: the round-55 fix (lessex.go pagerRuns)
// judges git's and man's pager as `PROGRAM | PAGER` when the pager's
// first word is a shell or an interpreter. The same shell reached another
// way is missed; on a terminal each of these runs the output as commands
// and deletes ~/.ssh:
//
//	N=printf 'rm -rf ~/.ssh\n' > notes &&
//	N git -c core.pager='env sh' grep --no-color -h --no-index -e rm notes      sandboxed
//	N git -c core.pager='cat|sh' grep …                                          sandboxed  (git runs a pager with | through sh -c)
//	N git -c core.pager='exec sh' grep …                                         sandboxed
//	N GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git grep …   sandboxed
//	N GIT_CONFIG_PARAMETERS="'core.pager'='sh'" git grep …                       sandboxed
//	N P=sh git --config-env=core.pager=P grep …                                   sandboxed
//	printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && MANPAGER='env sh' man -l x.1    sandboxed
//
// while `N git -c core.pager=sh grep …` is escalated (round 55).
//
// Why: lessex.go pagerRuns splits the pager into words and tests only
// the first (shellNames, isInterpreterName, readsCodeFromStdin): a
// wrapper (env, exec, nice, command, busybox) before the shell, or a
// pipeline (git and man hand a pager holding shell characters to sh
// -c), is not unwrapped or parsed; and lessex.go pagers reads git's
// settings only from -c, not from GIT_CONFIG_COUNT/KEY/VALUE,
// GIT_CONFIG_PARAMETERS or --config-env, which envconfig.go turns into
// -c words only for its own rules.
//
// Severity: high (rm -rf ~/.ssh, forbidden as `cat notes | sh` and
// escalated as the round-55 form, judged sandboxed).
// Found by red-team round 56. Fixed: lessex.go (a pager is judged as the script sh -c runs, fed
// the output; git's settings from the environment and --config-env too).
func TestRedteam56PagerWrappedShell(t *testing.T) {
	const (
		n    = `printf 'rm -rf ~/.ssh\n' > notes && `
		grep = ` grep --no-color -h --no-index -e rm notes`
		man  = `printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && `
	)
	cases := []struct{ prog, line string }{
		{"git", n + `git -c core.pager='env sh'` + grep},
		{"git", n + `git -c core.pager='cat|sh'` + grep},
		{"git", n + `git -c core.pager='exec sh'` + grep},
		{"git", n + `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git` + grep},
		{"git", n + `GIT_CONFIG_PARAMETERS="'core.pager'='sh'" git` + grep},
		{"git", n + `P=sh git --config-env=core.pager=P` + grep},
		{"man", man + `MANPAGER='env sh' man -l x.1`},
		{"man", man + `man -P 'nice sh' -l x.1`},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt56aHome(t)
		out := rt56aRunPty(t, home, work, c.line)
		if !rt56aGone(home) {
			t.Fatalf("premise: %q on a terminal did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// Reference: the round-55 form.
	rtAtLeast(t, []string{"bash"}, n+`git -c core.pager=sh`+grep, Escalated)
	rtAtLeast(t, []string{"bash"}, man+`man -P sh -l x.1`, Escalated)
	// The attack.
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
	// Controls: ordinary pagers, wrapped too.
	rtBelow(t, `git -c core.pager='env LESS=FRX less' log`, Escalated)
	rtBelow(t, `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=cat git log`, Escalated)
	rtBelow(t, `MANPAGER='env LESS=R less' man ls`, Escalated)
}

// rt56aRunPty runs `bash -c line` in work with the fake home on a new
// pseudo-terminal and returns what the terminal showed.
func rt56aRunPty(t *testing.T, home, work, line string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(work, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, work, os.TempDir())
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "LANG=C.UTF-8", "TERM=xterm", "TMPDIR=" + work, "GIT_CONFIG_NOSYSTEM=1",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=/usr/local/bin:/usr/bin:/bin"}
	return ptytest.Run(t, cmd, "", 60*time.Second)
}
