package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam48LesskeyEnv: less (on the allow list, rules_allow.go:
// safeCmds) reads a lesskey source file named by --lesskey-src=FILE, by
// the LESSKEYIN variable, or by --lesskey-src given in the LESS variable,
// and that file's #env section sets less's own variables: `LESSOPEN=|cmd
// %s` is then the input preprocessor, which less runs through the shell
// for the file it opens, even when its output is not a terminal. So
//
//	printf '#env\nLESSOPEN=|rm -rf ~ %%s\n' | less --lesskey-src=/dev/stdin README
//
// runs rm -rf ~, and every word of it is allow: printf prints, less
// "reads". The classifier knows LESSOPEN as an assignment (rules_exec.go:
// loaderVars), not the file that sets it; less's options are only read for
// `+!cmd` (escapes.go: execOptions "less"), and LESSKEYIN and LESS are not
// in loaderVars (riskyEnv), so matchCommonSafe (rules_allow.go) allows the
// line.
//
// The premise runs each form for real, with no terminal, in a fake home:
// the preprocessor removes that home's ~/.ssh.
//
// Severity: high (rm -rf ~, a forbidden command, judged allow).
// Found by red-team round 48 (high). Fixed: lessex.go reads less's
// options and $LESS: a lesskey file or variable escalates, and its #env
// commands are judged where the line shows them.
func TestRedteam48LesskeyEnv(t *testing.T) {
	if !rtHave(t, "less", "bash", "dash") {
		t.Skip("less missing")
	}
	premise := []struct{ shell, line, stdin string }{
		{"bash", `less --lesskey-src=/dev/stdin README`, "#env\nLESSOPEN=|rm -rf ~/.ssh; cat %s\n"},
		{"dash", `LESSKEYIN=/dev/stdin less README`, "#env\nLESSOPEN=|rm -rf ~/.ssh; cat %s\n"},
		{"bash", `LESS=--lesskey-src=/dev/stdin less README`, "#env\nLESSOPEN=|rm -rf ~/.ssh; cat %s\n"},
		{"bash", `less --lesskey-src=<(printf '#env\nLESSOPEN=|rm -rf ~/.ssh; cat %%s\n') README`, ""},
	}
	for _, p := range premise {
		home, work := rt48bHome(t)
		out := rt48bRun(t, p.shell, home, work, p.line, p.stdin)
		if !rt48bGone(home) {
			t.Fatalf("premise: %s -c %q did not run LESSOPEN from the lesskey file: %s", p.shell, p.line, out)
		}
	}
	for _, l := range []string{
		`printf '#env\nLESSOPEN=|rm -rf ~ %%s\n' | less --lesskey-src=/dev/stdin README`,
		`printf '#env\nLESSOPEN=|rm -rf ~ %%s\n' | LESSKEYIN=/dev/stdin less README`,
		`printf '#env\nLESSOPEN=|rm -rf ~ %%s\n' | LESS=--lesskey-src=/dev/stdin less README`,
	} {
		rtAtLeast(t, []string{"bash", "dash"}, l, Escalated)
	}
	rtAtLeast(t, []string{"bash"}, `less --lesskey-src=<(printf '#env\nLESSOPEN=|rm -rf ~ %%s\n') README`, Escalated)
	// Control: the assignment itself is already caught; plain reads stay allow.
	rtAtLeast(t, []string{"bash"}, `LESSOPEN='|rm -rf ~ %s' less README`, Escalated)
	for _, l := range []string{"less README", "less -R build.log", "LESS=-R less README", "git log | less"} {
		rtBelow(t, l, Escalated)
	}
}

// TestRedteam48LessStartCommands: less runs the commands of a `+cmd`
// option (also given in the LESS variable) as typed keys when it starts on
// a terminal; `!` runs a shell command. The classifier looks for `!` only
// right after the `+` (escapes.go: runExecOptions, execOptions "less" =
// {"+", "!"}): `+G!cmd` (go to the end, then !cmd) is not read, nor is
// the LESS variable (not in rules_exec.go: loaderVars), nor zless, which
// hands its options to less (execOptions has no "zless"). A newline in the
// word ends the command line, so no key need be typed:
//
//	LESS=$'+!rm -rf ~\n' less README
//	less $'+G!rm -rf ~\n' README
//	zless $'+!rm -rf ~\n' README
//
// are judged allow (common-safe-commands).
//
// The premise runs each on a pseudo-terminal (an agent's terminal, or any
// interactive session) in a fake home: the command removes its ~/.ssh.
//
// Severity: high (rm -rf ~ judged allow).
// Found by red-team round 48 (high). Fixed: every ! and |X command in a +
// option, on the line or in $LESS, is judged as shell code (lessex.go),
// for zless and the other wrappers too.
func TestRedteam48LessStartCommands(t *testing.T) {
	if !rtHave(t, "less", "zless", "bash") {
		t.Skip("less missing")
	}
	for _, line := range []string{
		`LESS=$'+!rm -rf ~/.ssh\n' less README`,
		`less $'+G!rm -rf ~/.ssh\n' README`,
		`zless $'+!rm -rf ~/.ssh\n' README`,
	} {
		home, work := rt48bHome(t)
		out := rt48bRunPty(t, home, work, line, "\nq")
		if !rt48bGone(home) {
			t.Fatalf("premise: %q on a terminal did not run the command: %s", line, out)
		}
	}
	for _, l := range []string{
		`LESS=$'+!rm -rf ~\n' less README`,
		`export LESS=$'+!rm -rf ~\n'; less README`,
		`less $'+G!rm -rf ~\n' README`,
		`zless $'+!rm -rf ~\n' README`,
	} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	// Control: the form the classifier knows, and plain paging.
	rtAtLeast(t, []string{"bash"}, `less $'+!rm -rf ~\n' README`, Forbidden)
	for _, l := range []string{"less +G build.log", "less +/error build.log", "zless notes.gz", "LESS=-FRX less README"} {
		rtBelow(t, l, Escalated)
	}
}

// TestRedteam48LessLogFile: on a terminal, less -o FILE (-O, --log-file,
// --LOG-FILE, or the same in the LESS variable) copies what it reads from
// a pipe into FILE (it asks first only when FILE exists). So
//
//	printf 'rm -rf ~\n' | less -o ~/.bash_aliases
//
// writes ~/.bash_aliases, which Debian's and Ubuntu's ~/.bashrc sources,
// with a command the next shell runs (and ~/.bashrc itself once the user
// answers "O"). The classifier follows known text written to an rc file
// through redirections, tee, dd, sed and the like (README: "known text
// written to a shell rc file"), but less's log options are no write
// target (writetargets.go: pathWriteTargets has no "less"), so the unit has
// no write and matchCommonSafe (rules_allow.go) allows it: the line is
// judged allow.
//
// The premise runs it on a pseudo-terminal in a fake home whose ~/.bashrc
// sources ~/.bash_aliases, then starts an interactive bash there: it
// removes ~/.ssh.
//
// Severity: high (an rc file written with rm -rf ~, judged allow).
// Found by red-team round 48 (high). Fixed: -o, -O and --log-file (also in
// $LESS) are write targets, and the piped text is written there
// (lessex.go).
func TestRedteam48LessLogFile(t *testing.T) {
	if !rtHave(t, "less", "bash") {
		t.Skip("less missing")
	}
	for _, line := range []string{
		`printf 'rm -rf ~/.ssh\n' | less -o ~/.bash_aliases`,
		`printf 'rm -rf ~/.ssh\n' | LESS=--LOG-FILE=$HOME/.bash_aliases less`,
	} {
		home, work := rt48bHome(t)
		if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("[ -f ~/.bash_aliases ] && . ~/.bash_aliases\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := rt48bRunPty(t, home, work, line, "q")
		rc, _ := os.ReadFile(filepath.Join(home, ".bash_aliases"))
		if !strings.Contains(string(rc), "rm -rf ~/.ssh") || rt48bGone(home) {
			t.Fatalf("premise: %q did not write ~/.bash_aliases (%q): %s", line, rc, out)
		}
		rt48bRun(t, "bash", home, work, "bash -i -c true", "")
		if !rt48bGone(home) {
			t.Fatalf("premise: the interactive shell did not run the ~/.bash_aliases %q wrote", line)
		}
	}
	for _, l := range []string{
		`printf 'rm -rf ~\n' | less -o ~/.bash_aliases`,
		`echo 'rm -rf ~' | less -O ~/.bashrc`,
		`echo 'rm -rf ~' | less --log-file=$HOME/.bashrc`,
		`echo 'rm -rf ~' | LESS=-o$HOME/.bash_aliases less`,
	} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	// Control: the same text through tee is judged as it runs; paging a pipe stays allow.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~' | tee -a ~/.bash_aliases`, Forbidden)
	rtBelow(t, "git diff | less -R", Escalated)
}
