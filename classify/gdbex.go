package classify

import (
	"slices"
	"strings"
)

// gdb runs shell commands through its own commands, given in -ex, -iex
// (--eval-command, --init-eval-command): shell (any abbreviation down to
// "she") and !, pipe and |, python, eval of a string, and run/start, which
// start the program through /bin/sh with the arguments as shell text.

// gdbExOptions are gdb's options whose value is a gdb command.
var gdbExOptions = []string{"-ex", "-iex", "--eval-command", "--init-eval-command", "-eval-command", "-init-eval-command"}

// gdbCommands classifies what the gdb commands of u's options run.
func (a *analyzer) gdbCommands(u *unit) {
	prog := gdbProgram(u.args)
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "--args" {
			break
		}
		for _, o := range gdbExOptions {
			switch {
			case v == o && i+1 < len(u.args):
				i++
				a.gdbCommand(u, u.args[i], &prog, 0)
			case strings.HasPrefix(v, o+"="):
				f := u.args[i]
				f.val = v[len(o)+1:]
				a.gdbCommand(u, f, &prog, 0)
			default:
				continue
			}
			break
		}
	}
}

// gdbProgram returns the program gdb debugs: the first operand, or the
// word after --args.
func gdbProgram(args []field) string {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--args" && i+1 < len(args):
			return args[i+1].val
		case strings.HasPrefix(v, "-"):
			if slices.Contains(gdbExOptions, v) || v == "-x" || v == "--command" || v == "-p" || v == "--pid" || v == "-d" || v == "--directory" || v == "-cd" || v == "-s" || v == "--symbols" || v == "-e" || v == "--exec" || v == "-c" || v == "--core" {
				i++
			}
		default:
			return v
		}
	}
	return ""
}

// gdbCommand classifies one gdb command; prog is the program a later run
// starts (file sets it).
func (a *analyzer) gdbCommand(u *unit, f field, prog *string, depth int) {
	a.gdbSource(u, f) // source x.gdb the line wrote (round 54)
	cmd := strings.TrimSpace(f.val)
	shell := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			a.shellString(u, field{val: s, dyn: f.dyn})
		}
	}
	switch {
	case depth > 4:
		return
	case strings.HasPrefix(cmd, "!"):
		shell(cmd[1:])
		return
	case strings.HasPrefix(cmd, "|"):
		_, sh, _ := strings.Cut(cmd[1:], "|") // | GDB-COMMAND | SHELL-COMMAND
		shell(sh)
		return
	}
	word, rest, _ := strings.Cut(cmd, " ")
	switch {
	case len(word) >= 3 && strings.HasPrefix("shell", word):
		shell(rest)
	case word == "pipe":
		_, sh, _ := strings.Cut(rest, "|")
		shell(sh)
	case word == "python" || word == "py" || word == "python-interactive" || word == "pi":
		a.codeText(u, "python", rest)
	case word == "eval":
		// eval "FORMAT": a literal format is the command it names; one
		// with arguments or % directives is built at run time.
		lit, n := readLiteralMaybe(strings.TrimSpace(rest), `"`)
		if n == 0 || strings.Contains(lit, "%") || strings.TrimSpace(strings.TrimSpace(rest)[n:]) != "" {
			u.script = &stream{traits: trUnknown}
			return
		}
		g := f
		g.val = lit
		a.gdbCommand(u, g, prog, depth+1)
	case word == "file" || word == "exec-file":
		*prog = strings.TrimSpace(rest)
	case word == "run" || word == "r" || word == "start" || word == "starti":
		// gdb starts the program with /bin/sh -c "exec PROG ARGS".
		if strings.TrimSpace(rest) != "" && *prog != "" {
			shell(shellQuote(*prog) + " " + rest)
		}
	}
}
