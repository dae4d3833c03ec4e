package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam45ManPagerEnv: man-db runs $MANPAGER (before $PAGER) as its
// pager whenever its output is a terminal, splitting it into words with
// shell-like quoting, so `MANPAGER='sh -c "rm -rf ~"' man ls` runs
// rm -rf ~. The classifier knows `PAGER=… man` (forbidden) and `man -P
// …`/`--pager` (escapes.go: execOptions "man"), but MANPAGER is neither in
// the variables holding code (rules_exec.go: loaderVars/codeVars) nor read
// as man's pager, so the line is judged allow (common-safe-commands):
// man is on the allow list (rules_allow.go).
//
// The premise runs man on a pseudo-terminal (an agent's terminal, or any
// interactive session) with a harmless marker command.
//
// Severity: high (a forbidden command allowed).
// Found by red-team round 45 (high). Fixed: MANPAGER (and
// SYSTEMD_PAGER, GIT_SEQUENCE_EDITOR, SUDO_EDITOR, SYSTEMD_EDITOR, FCEDIT,
// SVN_EDITOR) is code as PAGER is; env NAME=VALUE gives such a value to
// the command it runs as a prefix assignment does.
func TestRedteam45ManPagerEnv(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man not installed")
	}
	if err := exec.Command("man", "-w", "ls").Run(); err != nil {
		t.Skip("no manual page for ls")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED45")
	rt45aRunPty(t, []string{"MANPAGER=sh -c \"touch " + marker + "\""}, "man", "ls")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("premise: man did not run MANPAGER: %v", err)
	}
	for _, l := range []string{
		`MANPAGER='sh -c "rm -rf ~"' man ls`,
		`export MANPAGER='sh -c "rm -rf ~"'; man ls`,
		`env MANPAGER='sh -c "rm -rf ~"' man ls`,
	} {
		judgedAtLeast(t, "bash", l, Forbidden)
		judgedAtLeast(t, "dash", l, Forbidden)
	}
	// Control: the same with PAGER is already forbidden; plain uses stay below escalated.
	judgedAtLeast(t, "bash", `PAGER='sh -c "rm -rf ~"' man ls`, Forbidden)
	for _, l := range []string{"man ls", "MANPAGER=cat man ls", "MANPAGER='less -R' man git-log"} {
		if r := Default().ClassifyShell("bash", l); r.Decision > Sandboxed {
			t.Errorf("control: %q = %s (%s), want at most sandboxed", l, r.Decision, r.Rule)
		}
	}
}

// rt45aRunPty runs name with args on a new pseudo-terminal (its
// controlling terminal, as standard input, output and error), with env
// added to the environment, and waits up to 30 seconds for it to exit.
func rt45aRunPty(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm")
	cmd.Env = append(cmd.Env, env...)
	ptytest.Run(t, cmd, "", 30*time.Second)
}
