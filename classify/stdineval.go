package classify

import "strings"

// stdinLang says, for one language, how code runs what it reads from
// standard input as code.
type stdinLang struct {
	calls []string // calls that run a string as code
	// methods are the calls that do so on whatever object they are
	// called (Kernel.eval, obj.instance_eval); the others only bare.
	methods []string
	refs    []string // expressions that read standard input
	// noArg is what a call given no argument runs: perl's eval runs $_,
	// lua's dofile() standard input.
	noArg map[string]string
	// loop is what the loop of -n/-p reads each line with (perl -ne
	// 'eval' is while (<>) { eval }).
	loop string
	// aliases finds the other names code gives modules and their members
	// (import sys as s, from sys import stdin).
	aliases func(code string) [][2]string
}

// stdinEval is, per language, how code runs its standard input.
var stdinEval = map[string]stdinLang{
	"python": {calls: []string{"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile", "runpy.run_path"},
		refs: []string{"sys.stdin", "sys.__stdin__", "sys').stdin", `sys").stdin`, "input(", "open(0", "os.read(0",
			"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "fileinput"},
		aliases: pythonAliases},
	"perl": {calls: []string{"eval"}, refs: []string{"<STDIN>", "<>", "<<>>", "/dev/stdin"}, noArg: map[string]string{"eval": "$_"}, loop: "<>"},
	"ruby": {calls: []string{"eval", "instance_eval", "class_eval", "module_eval"}, methods: []string{"eval", "instance_eval", "class_eval", "module_eval"},
		refs: []string{"$stdin", "STDIN", "ARGF", "gets", "$<", "/dev/stdin"}, loop: "gets"},
	"node": {calls: []string{"eval", "Function", "vm.runInThisContext", "vm.runInNewContext"}, refs: []string{"readFileSync(0", "/dev/stdin", "process.stdin"}},
	"php":  {calls: []string{"eval"}, refs: []string{"php://stdin", "STDIN"}},
	"lua": {calls: []string{"load", "loadstring", "dofile"}, refs: []string{"io.read", "io.stdin", "io.lines", "/dev/stdin"},
		noArg: map[string]string{"dofile": "io.stdin"}},
}

// evalsStdin reports whether code runs what it reads from standard input
// as code: an eval-like call whose argument reads it (exec(sys.stdin.read()),
// eval <STDIN>), or is a plain name while the code reads it.
func evalsStdin(lang, code string) bool {
	ev, ok := stdinEval[lang]
	if !ok {
		return false
	}
	calls, refs := ev.calls, ev.refs
	if ev.aliases != nil {
		as := ev.aliases(code)
		calls, refs = withAliases(calls, as), withAliases(refs, as)
	}
	for _, name := range calls {
		for _, sp := range nameSpans(code, name) {
			i, off := sp[0], sp[1]
			method := i > 0 && code[i-1] == '.' && contains(ev.methods, name)
			if i > 0 && isIdent(code[i-1]) && !method || off < len(code) && isIdent(code[off]) {
				continue
			}
			arg := callArgText(code[off:])
			if t := strings.Trim(arg, " \t()"); t == "" || t == "nil" {
				if r, ok := ev.noArg[name]; ok {
					arg = r
				}
			}
			if containsAny(arg, refs...) {
				return true
			}
			if n := strings.Trim(arg, " \t()$@"); n != "" && isName(n) && containsAny(code, refs...) {
				return true
			}
		}
	}
	return false
}

// loopEvalsStdin reports whether code that perl -n/-p or ruby -n/-p runs
// once per input line runs that line as code (perl -ne 'eval').
func loopEvalsStdin(lang, code string) bool {
	ev, ok := stdinEval[lang]
	return ok && ev.loop != "" && evalsStdin(lang, ev.loop+";\n"+code)
}

// withAliases adds to names their spellings under the aliases (from, to):
// sys.stdin is also s.stdin after import sys as s, and stdin after from
// sys import stdin.
func withAliases(names []string, aliases [][2]string) []string {
	if len(aliases) == 0 {
		return names
	}
	out := append([]string(nil), names...)
	for _, n := range names {
		for _, al := range aliases {
			if rest, ok := strings.CutPrefix(n, al[0]); ok && (rest == "" || !isIdent(rest[0]) || rest[0] == '.') {
				out = append(out, al[1]+rest)
			}
		}
	}
	return out
}

var (
	pyImportAs   = lazyRegexp(`\bimport\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)`)
	pyFromImport = lazyRegexp(`\bfrom\s+([\w.]+)\s+import\s+\(?\s*(\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*)`)
)

// pythonAliases returns the names Python code binds by importing: import
// sys as s gives (sys, s), from sys import stdin as i gives (sys.stdin, i),
// from os import read gives (os.read, read).
func pythonAliases(code string) [][2]string {
	var out [][2]string
	for _, m := range pyImportAs().FindAllStringSubmatch(code, -1) {
		for _, item := range strings.Split(m[1], ",") {
			if w := strings.Fields(item); len(w) == 3 {
				out = append(out, [2]string{w[0], w[2]}) // MODULE as NAME
			}
		}
	}
	for _, m := range pyFromImport().FindAllStringSubmatch(code, -1) {
		for _, item := range strings.Split(m[2], ",") {
			w := strings.Fields(item)
			out = append(out, [2]string{m[1] + "." + w[0], w[len(w)-1]}) // NAME [as ALIAS]
		}
	}
	return out
}
