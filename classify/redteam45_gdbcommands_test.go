package classify

import "testing"

// TestRedteam45GdbCommands: gdb runs shell commands in more ways than
// `-ex 'shell CMD'` and `-ex '!CMD'`, the two the classifier knows
// (escapes.go: execOptions, "gdb" lists only -ex/--eval-command with the
// prefixes "shell " and "!"; runExecOptions matches the value's prefix):
//
//   - -iex/--init-eval-command run their command like -ex (before the
//     inferior is loaded);
//   - `pipe CMD | SHELL_CMD` and its alias `| CMD | SHELL_CMD` hand
//     SHELL_CMD to /bin/sh (gdb >= 10);
//   - gdb commands may be abbreviated: `she CMD` is `shell CMD`;
//   - `eval "shell CMD"` formats and runs a command;
//   - `python os.system(...)` runs Python code (not scanned as the
//     `python3 -c` one-liner it is);
//   - `run ARGS` runs the loaded program through /bin/sh
//     (startup-with-shell is on), so `file /bin/sh` + `run -c 'CMD'` runs CMD.
//
// Each of these lines runs rm -rf ~ and is judged sandboxed.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 45 (high). Fixed: gdbCommands (gdbex.go) reads -ex and -iex
// values as gdb does: shell by any abbreviation, !, pipe and |, python,
// eval of a literal string (of a built one: escalated), and run/start with
// the program file or the first operand names, as the shell line gdb runs.
func TestRedteam45GdbCommands(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"gdb", "-batch", "-iex", "shell CMD"}},
		{argv: []string{"gdb", "-batch", "--init-eval-command=shell CMD"}},
		{argv: []string{"gdb", "-batch", "-ex", "pipe echo | CMD"}},
		{argv: []string{"gdb", "-batch", "-ex", "| echo | CMD"}},
		{argv: []string{"gdb", "-batch", "-ex", "she CMD"}},
		{argv: []string{"gdb", "-batch", "-ex", `eval "shell CMD"`}},
		{argv: []string{"gdb", "-batch", "-ex", `python import os; os.system("CMD")`}},
		{argv: []string{"gdb", "-batch", "-ex", "file /bin/sh", "-ex", "run -c 'CMD'"}},
	}, Forbidden)
	// Control: an ordinary batch session stays below escalated.
	for _, l := range []string{`gdb -batch -ex 'print 1+1'`, `gdb -batch -ex run -ex bt --args ./a.out x`} {
		if r := Default().ClassifyShell("bash", l); r.Decision > Sandboxed {
			t.Errorf("control: %q = %s (%s), want at most sandboxed", l, r.Decision, r.Rule)
		}
	}
}
