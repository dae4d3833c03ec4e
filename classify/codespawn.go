package classify

import (
	"strings"
)

// This file finds, in interpreter code, the calls that run a command the
// code only puts together at run time: `perl -e 'exec @ARGV' rm -rf ~`,
// `python3 -c 'import os,sys; os.system(sys.argv[1])' 'rm -rf ~'`,
// `awk -v c='rm -rf ~' 'BEGIN{system(c)}'`, perl's `system(q(rm -rf ~))`.
// scanCode reads the string literals a spawn call starts with; a call
// whose command is anything else runs what the classifier cannot see, so
// the code is escalated, and what the line hands the code (its operands,
// awk's -v values, the code's own literals) is judged as the command it
// may be.

// extraSpawns are spawn calls beside commandCalls' names: the exec and
// spawn families and the libraries that wrap them.
var extraSpawns = []string{"execve", "execvpe", "execle", "execlpe", "spawnv", "spawnvp", "spawnve", "spawnvpe",
	"spawnl", "spawnlp", "spawnle", "spawnlpe", "posix_spawn", "posix_spawnp", "popen2", "popen3", "capture2",
	"capture2e", "capture3", "pipeline", "pcntl_exec", "startfile"}

// bareCallLangs are the languages that call a function without parentheses
// (perl's `exec @ARGV`, ruby's `system cmd`, tcl's `exec $c`).
var bareCallLangs = newSet("perl", "ruby", "tcl")

// argvMarkers name a program's own arguments, lower-cased: perl's @ARGV,
// python's sys.argv, node's process.argv, php's $argv, awk's ARGV, lua's
// arg[…] and ..., R's commandArgs(), deno's Deno.args.
var argvMarkers = []string{"argv", "arg[", "...", "commandargs(", "deno.args"}

// opaqueSpawn is one spawn call whose command is only known at run time.
type opaqueSpawn struct {
	prefix []string // the string literals its argument list starts with
	argv   bool     // it passes on the program's own arguments
}

// opaqueSpawns returns the spawn calls of code (in lang) whose command is
// not a list of string literals: one with another first argument, or one
// with a variable or the program's arguments after its literals
// (system("rm", @ARGV)). The code's strings are blanked first, so a name
// or a marker inside a string is not read as code.
func opaqueSpawns(lang, code string) []opaqueSpawn {
	blank := blankStrings(code)
	lower := strings.ToLower(blank)
	var out []opaqueSpawn
	seen := map[int]bool{} // "exec" is also found inside "execvp"
	for _, name := range spawnNames(lang, lower) {
		for _, sp := range nameSpans(blank, name) {
			if seen[sp[0]] || sp[0] > 0 && isIdent(blank[sp[0]-1]) && blank[sp[0]-1] != '.' ||
				sp[1] < len(blank) && isIdent(blank[sp[1]]) {
				continue
			}
			arg, ok := spawnArg(lang, blank[sp[1]:])
			if !ok {
				continue
			}
			seen[sp[0]] = true
			start := sp[1] + strings.Index(blank[sp[1]:], arg)
			lits, _ := literals(code[start : start+len(arg)])
			lowArg := strings.ToLower(arg)
			argv := containsAny(lowArg, argvMarkers...)
			sigil := (lang == "perl" || lang == "php") && strings.ContainsAny(arg, "$@")
			if len(lits) > 0 && !argv && !sigil {
				continue // scanCode reads it: system("ls", "-l")
			}
			if lang == "python" && (name == "exec" || name == "eval") && !argv && !isName(arg) {
				continue // exec(open("x.py").read()) runs a file, as python x.py would
			}
			out = append(out, opaqueSpawn{prefix: lits, argv: argv})
		}
	}
	return out
}

// spawnNames returns the calls that run a command in lang. python's run and
// call, and node's exec, are common names (asyncio.run, re.exec): they
// count where the code uses subprocess or child_process.
func spawnNames(lang, lower string) []string {
	var names []string
	for _, cs := range append(commandCalls()[""], commandCalls()[lang]...) {
		switch {
		case !cs.shell && lang != "python":
		case lang == "python" && (cs.name == "run" || cs.name == "call") && !strings.Contains(lower, "subprocess"):
		case lang == "node" && cs.name == "exec" && !strings.Contains(lower, "child_process"):
		case cs.name == "qx" || cs.name == "%x":
		default:
			names = append(names, cs.name)
		}
	}
	return append(names, extraSpawns...)
}

// spawnArg returns the argument list of a call whose name ends just before
// rest: the text inside its parentheses, or in a language with bare calls
// the words up to the end of the statement. ok is false where no argument
// list follows (a name in `import os.system`, `system()`).
func spawnArg(lang, rest string) (string, bool) {
	t := strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(t, "(") {
		arg := strings.TrimSpace(strings.TrimSuffix(callArgText(t)[1:], ")"))
		return arg, arg != ""
	}
	if !bareCallLangs.has(lang) || len(t) == len(rest) || t == "" {
		return "", false
	}
	if c := t[0]; strings.IndexByte("$@%*&\"'`[", c) < 0 && !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
		return "", false
	}
	arg := strings.TrimSpace(callArgText(t))
	if w, _, _ := strings.Cut(arg, " "); bareKeywords.has(w) {
		return "", false // perl's `exec if $x` is no argument
	}
	return arg, arg != ""
}

// bareKeywords end a statement where an argument could have started.
var bareKeywords = newSet("if", "unless", "or", "and", "while", "until", "for", "foreach", "do", "then", "end")

// codeStrings returns the string literals of code, each once.
func codeStrings(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		if c := code[i]; c != '"' && c != '\'' {
			continue
		}
		lit, n := readLiteral(code[i:])
		if n == 0 {
			break
		}
		if strings.TrimSpace(lit) != "" && !contains(out, lit) {
			out = append(out, lit)
		}
		i += n - 1
	}
	return out
}

// pipeOpens returns the commands perl's and ruby's open run: a mode string
// of "|cmd" or "cmd|", and perl's "-|" or "|-" mode, whose further literals
// are the command (one string: shell text; more: an argument vector). A
// command after the mode that is not a literal is opaque.
func pipeOpens(code string) (shells []string, argvs [][]string, opaque bool) {
	for _, c := range callArgs(code, "open") {
		arg := strings.TrimPrefix(strings.TrimSpace(c.arg), "(")
		lits := c.lits
		_, after, ok := strings.Cut(arg, ",")
		if ok && len(lits) == 0 {
			lits, _ = literals(after) // open(F, "|cmd"), open(my $f, "-|", …)
		}
		// open(my $f, "-|", "rm", "-rf", $ENV{HOME}): a variable after the
		// mode is part of the command.
		vars := strings.ContainsAny(blankStrings(after), "$@")
	scan:
		for i, l := range lits {
			t := strings.TrimSpace(l)
			switch {
			case t == "-|" || t == "|-":
				opaque = opaque || vars
				switch rest := lits[i+1:]; len(rest) {
				case 0:
					opaque = true
				case 1:
					shells = append(shells, rest[0])
				default:
					argvs = append(argvs, rest)
				}
			case strings.HasPrefix(t, "|"):
				shells = append(shells, t[1:])
			case strings.HasSuffix(t, "|"):
				shells = append(shells, t[:len(t)-1])
			default:
				continue
			}
			break scan // the mode is the first pipe; later strings are data
		}
	}
	return shells, argvs, opaque
}
