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

// stdinSink says when a program runs code read from standard input: given
// one of seqs, words that follow each other ("-" stands for /dev/stdin
// and its aliases too; no words: whenever the input is piped). With
// cluster, short options cluster as getopt allows (make -sf -, -f-).
// Between a subcommand and a following option of the sequence, other
// options may stand (deno run -A -), valueOpts with their values.
type stdinSink struct {
	seqs      [][]string
	cluster   bool
	valueOpts []string
	lang      string // what known code is: "" shell, "sed" a sed script, "make" a makefile
	bareDash  bool   // "-" as the first operand, with no subcommand, runs it too (deno -A -)
}

var (
	makeSink = &stdinSink{seqs: [][]string{{"-f", "-"}, {"--file", "-"}, {"--makefile", "-"}}, cluster: true, lang: "make"}
	sedSink  = &stdinSink{seqs: [][]string{{"-f", "-"}, {"--file", "-"}}, cluster: true, lang: "sed"}
	denoSink = &stdinSink{seqs: [][]string{{"run", "-"}}, valueOpts: []string{"-c", "--config", "--import-map", "--lock",
		"--cert", "-L", "--log-level", "--location", "--seed", "--inspect-wait"}, bareDash: true}
	// vim in ex mode (-e, -E, -es) reads its commands from standard
	// input; gdb, ed and sqlite3 read theirs whenever it is piped (round
	// 56). Known commands are judged as the tool's.
	vimSink  = &stdinSink{seqs: [][]string{{"-s", "-"}, {"-S", "-"}, {"-e"}, {"-E"}, {"-es"}, {"-Es"}}, lang: "vim"}
	gdbSink  = &stdinSink{seqs: [][]string{nil}, lang: "gdb"}
	edSink   = &stdinSink{seqs: [][]string{nil}, lang: "ed"}
	sqlSink  = &stdinSink{seqs: [][]string{nil}, lang: "sqlite"}
	toolLang = map[string]bool{"vim": true, "gdb": true, "sqlite": true}
)

// stdinCodeSinks are the programs that may run code from standard input.
var stdinCodeSinks = map[string]*stdinSink{
	"deno": denoSink, "bun": {seqs: [][]string{{"run", "-"}, {"-"}}},
	"pwsh":       {seqs: [][]string{{"-"}, {"-File", "-"}, {"-f", "-"}}},
	"powershell": {seqs: [][]string{{"-"}, {"-File", "-"}}}, "jshell": {seqs: [][]string{nil}},
	"gdb": gdbSink, "ed": edSink, "red": edSink, "sqlite3": sqlSink, "sqlite": sqlSink,
	"vim": vimSink, "nvim": vimSink, "vi": vimSink, "view": vimSink, "ex": {seqs: [][]string{nil}, lang: "vim"},
	"make": makeSink, "gmake": makeSink, "sed": sedSink, "gsed": sedSink,
	"bmake": makeSink, "pmake": makeSink, "bsdmake": makeSink, "remake": makeSink, // buildsystems.go
	"tclsh": {seqs: [][]string{{"-"}}}, "osascript": {seqs: [][]string{{"-"}}}, "Rscript": {seqs: [][]string{{"-"}}},
}

// stdinWord maps the names of standard input to "-".
func stdinWord(v string) string {
	switch v {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return "-"
	}
	if k, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(k, "--") {
		return k + " " + stdinWord(val)
	}
	return v
}

// sinkWords splits u's arguments into the words a sink's sequences are
// matched against: --opt=- as two words (--opt=VALUE stays one option
// word: deno run --allow-read=. -), and with cluster -sf as -s -f, -f- as
// -f -.
func (k *stdinSink) words(args []field) []string {
	var words []string
	for _, f := range args {
		w := stdinWord(f.val)
		if o, v, ok := strings.Cut(w, " "); ok && strings.HasPrefix(o, "--") {
			if v == "-" {
				words = append(words, o, v)
			} else {
				words = append(words, o+"="+v)
			}
			continue
		}
		if k.cluster && len(w) > 2 && w[0] == '-' && w[1] != '-' {
			for j := 1; j < len(w); j++ {
				words = append(words, "-"+w[j:j+1])
				if rest := w[j+1:]; rest != "" && k.takesValue(w[j]) {
					words = append(words, stdinWord(rest))
					break
				}
			}
			continue
		}
		words = append(words, w)
	}
	return words
}

// takesValue reports whether the short option c starts a sequence (-f -):
// what follows it in a cluster is its value.
func (k *stdinSink) takesValue(c byte) bool {
	for _, seq := range k.seqs {
		if len(seq) > 1 && seq[0] == "-"+string(c) {
			return true
		}
	}
	return false
}

// readsCodeFromStdin returns the sink through which u runs code from its
// piped input, or nil.
func readsCodeFromStdin(u *unit) *stdinSink {
	k, ok := stdinCodeSinks[u.name]
	if !ok || !u.piped || u.dynName {
		return nil
	}
	words := k.words(u.args)
	for _, seq := range k.seqs {
		if len(seq) == 0 || k.matchAt(words, seq) {
			return k
		}
	}
	if k.bareDash {
		// deno -A -: run is implied when the first operand is a script.
		for j := 0; j < len(words); j++ {
			if w := words[j]; len(w) > 1 && w[0] == '-' {
				if contains(k.valueOpts, w) {
					j++
				}
				continue
			}
			if words[j] == "-" {
				return k
			}
			break
		}
	}
	return nil
}

// matchAt reports whether seq occurs in words, options (and the values of
// valueOpts) allowed between a subcommand and an option after it.
func (k *stdinSink) matchAt(words, seq []string) bool {
	for i := range words {
		j, n := i, 0
		for ; n < len(seq) && j < len(words); n++ {
			if n > 0 && !strings.HasPrefix(seq[n-1], "-") {
				for j < len(words) && words[j] != seq[n] && len(words[j]) > 1 && words[j][0] == '-' {
					if contains(k.valueOpts, words[j]) {
						j++
					}
					j++
				}
			}
			if j >= len(words) || words[j] != seq[n] {
				break
			}
			j++
		}
		if n == len(seq) {
			return true
		}
	}
	return false
}

// stdinCode records that u runs its piped input as code through sink k.
func (a *analyzer) stdinCode(u *unit, k *stdinSink) {
	switch {
	case k.lang == "sed" && u.in.textKnown:
		a.sedScript(u, field{val: u.in.text})
		return
	case k.lang == "make" && u.in.textKnown:
		a.makefile(u, field{val: u.in.text})
		return
	case toolLang[k.lang] && u.in.textKnown:
		a.toolText(u, k.lang, u.in.text)
		return
	case k.lang == "ed" && u.in.textKnown:
		a.edText(u, u.in.text)
		return
	}
	a.codeFromInput(u, u.in)
}

// edBang matches the ed commands that run a shell command: !cmd, and r, w
// and e with !cmd for a file.
var edBang = lazyRegexp(`^\s*[0-9.,$;'a-z+\-]*\s*[wWreE]?\s*!(.*)$`)

// edText judges the shell commands of ed commands.
func (a *analyzer) edText(u *unit, text string) {
	for l := range strings.Lines(text) {
		if m := edBang().FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil && strings.TrimSpace(m[1]) != "" {
			a.shellString(u, field{val: m[1]})
		}
	}
}
