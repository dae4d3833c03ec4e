package classify

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// shellNames are programs that run shell code.
var shellNames = newSet("sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "ash", "yash",
	"posh", "rbash", "fish", "csh", "tcsh", "oksh", "loksh", "hush", "elvish", "nu", "xonsh")

// runShellArgs follows the code a shell runs: the -c string, a script
// operand (process substitution, URL, /dev/stdin) or its standard input.
func (a *analyzer) runShellArgs(u *unit) (stream, bool) {
	cflag, sflag, iflag := false, false, false
	var ops []field
	var rcfile *field // bash --rcfile FILE, --init-file FILE
	for i := 0; i < len(u.args); i++ {
		f := u.args[i]
		v := f.val
		if len(ops) > 0 {
			ops = append(ops, f)
			continue
		}
		switch {
		case v == "--" || v == "-":
			ops = append(ops, u.args[i+1:]...)
			i = len(u.args)
			if v == "-" {
				sflag = true
			}
			continue
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--rcfile", "--init-file", "--init-command", "--command":
				if v == "--command" || v == "--init-command" { // fish
					if i+1 < len(u.args) {
						a.shellString(u, u.args[i+1])
					}
				} else if i+1 < len(u.args) {
					rcfile = &u.args[i+1]
				}
				i++
			}
			if strings.HasPrefix(v, "--command=") || strings.HasPrefix(v, "--init-command=") {
				g := f
				_, g.val, _ = strings.Cut(v, "=")
				a.shellString(u, g)
			}
			continue
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'i':
					iflag = true
				case 'o', 'O':
					i++
					if v[j] == 'O' && v[0] == '-' && i < len(u.args) && lastpipeWord(u.args[i]) {
						a.lastpipe = true // bash -O lastpipe -c …
					}
					if v[j] == 'O' && v[0] == '-' && i < len(u.args) && xpgEchoWord(u.args[i]) {
						a.xpgEcho = true // bash -O xpg_echo -c …
					}
				}
			}
			continue
		}
		ops = append(ops, f)
	}
	if rcfile != nil && (iflag || !cflag && len(ops) == 0) {
		// An interactive bash sources its rc file first: bash --rcfile
		// e.sh -i is . e.sh. Without -c or a script, stdin may be a
		// terminal, which makes the shell interactive too.
		a.scriptFile(u, *rcfile, a.script)
	}
	switch {
	case cflag && u.viaXargs && (len(ops) == 0 || strings.TrimSpace(ops[0].val) == u.xargsToken):
		// xargs -0 sh -c, xargs -I{} sh -c {}, xargs -I % sh -c %: the
		// code is xargs' input.
		if len(ops) > 0 {
			u.markCode(ops[0])
		}
		return a.codeFromInput(u, u.argsIn), true
	case cflag && u.viaXargs && u.xargsToken != "" && strings.Contains(ops[0].val, u.xargsToken):
		// xargs -I{} sh -c '{};', -I X sh -c 'X; rm -rf ~': each input
		// line is pasted into the code.
		u.markCode(ops[0])
		return a.xargsCode(u, ops[0].val), true
	case cflag:
		if len(ops) == 0 {
			return stream{traits: trUnknown}, true
		}
		f := ops[0]
		u.markCode(f)
		s := stream{traits: f.src.traits, text: f.val, textKnown: true}
		u.script = &s
		in := u.in
		// bash -c 'rm -rf "$1"' sh /: the words after the string are $0, $1 …
		pos := positionalParams(nil)
		if len(ops) > 2 {
			pos = positionalParams(ops[2:])
		}
		run := func() stream { return a.script(f.val, &in) }
		if len(ops) > 1 {
			// $0 is the word after the string: sh -c 'rm -rf "$0"' ~
			// (round 56).
			zero := ops[1]
			inner := run
			run = func() stream {
				saved, had := a.vars["0"]
				a.setVar("0", varVal{val: zero.val, known: !zero.dyn, home: zero.home})
				defer func() { a.vars = putBack(a.vars, "0", saved, had) }()
				return inner()
			}
		}
		return a.withPositional(pos, run), true
	case len(ops) > 0 && !sflag:
		a.scriptFile(u, ops[0], a.script)
		return stream{traits: trUnknown}, true
	case u.piped:
		s := u.in
		u.script = &s
		if s.text != "" {
			a.script(s.text, nil)
		} else {
			runTexts(s, a.script)
		}
	}
	return stream{traits: trUnknown | trShellOut}, true
}

// codeFromInput records that u runs the data in as shell code (curl … |
// xargs -0 sh -c, … | sed e): a known text is classified as if it ran,
// anything else by where it came from.
func (a *analyzer) codeFromInput(u *unit, in stream) stream {
	s := in
	if !s.textKnown && s.traits == 0 {
		// Nothing is known of the input (a terminal, or the standard
		// input of an enclosing bash -c): as for the program alone.
		return stream{traits: trUnknown | trShellOut}
	}
	u.script = &s
	runTexts(s, a.script)
	return stream{traits: trUnknown | trShellOut}
}

// xargsInput stands, in code xargs builds from its input, for an input
// line only known at run time: a command substitution, which the code
// cannot give a value (as it could a variable).
const xargsInput = "$(__xargs_input)"

// xargsInputBare is what xargsInput leaves of a word with the run-time
// parts taken as empty: xargs -I skips blank input lines, so the pasted
// line is never empty (mv {} {}.bak is not mv "" .bak, rm -r {} is not
// rm -r ""). A for-loop variable over relative words (see loopItem) leaves
// the same.
const xargsInputBare = "__xargs_input"

// xargsCode classifies shell code into which xargs pastes each input line
// in place of its replace string. Input from the network, a decoder or
// the history makes the code come from there; a known input is pasted
// line by line; otherwise the line is a value only known at run time (a
// command word made of it is eval-exec).
func (a *analyzer) xargsCode(u *unit, code string) stream {
	in := u.argsIn
	if r := in.execRule(); r != "" && r != RuleEvalExec {
		u.script = &in
	}
	if in.textKnown {
		for _, line := range strings.Split(strings.TrimSuffix(in.text, "\n"), "\n") {
			c, ok := a.paste(code, u.xargsToken, line)
			if !ok {
				break
			}
			a.script(c, nil)
		}
		return stream{traits: trUnknown | trShellOut}
	}
	// Only the stand-in this pastes is known to be non-empty, not one the
	// code itself spells out.
	fill := a.xargsFill
	a.xargsFill = !strings.Contains(code, xargsInput)
	if c, ok := a.paste(code, u.xargsToken, xargsInput); ok {
		a.script(c, nil)
	}
	a.xargsFill = fill
	return stream{traits: trUnknown | trShellOut}
}

// interpSpec says where an interpreter takes inline code from.
type interpSpec struct {
	lang      string // language for the code scanner
	codeShort string // short options whose value is code (python -c, perl -e)
	codeLong  []string
	argShort  string // short options that take some other value
	argLong   []string
	module    byte   // python -m MODULE runs a module like a command
	loopShort string // short options that run the code once per input line (perl -n, -p)
	evalSub   string
}

var interpreters = sync.OnceValue(func() map[string]*interpSpec {
	return map[string]*interpSpec{
		"python":      {lang: "python", codeShort: "c", argShort: "WXQ", module: 'm'},
		"pypy":        {lang: "python", codeShort: "c", argShort: "WX", module: 'm'},
		"ipython":     {lang: "python", codeShort: "c", module: 'm'},
		"perl":        {lang: "perl", codeShort: "eE", argShort: "IMm", loopShort: "np"}, // -x takes only an attached directory (red-team round 52)
		"ruby":        {lang: "ruby", codeShort: "e", argShort: "IrCEF", loopShort: "np"},
		"irb":         {lang: "ruby"},
		"node":        {lang: "node", codeShort: "ep", codeLong: []string{"--eval", "--print"}, argShort: "rC", argLong: []string{"--require", "--import", "--loader", "--experimental-loader", "--input-type", "--conditions"}},
		"nodejs":      {lang: "node", codeShort: "ep", codeLong: []string{"--eval", "--print"}, argShort: "r", argLong: []string{"--require", "--import"}},
		"bun":         {lang: "node", codeShort: "ep", codeLong: []string{"--eval", "--print"}},
		"deno":        {lang: "node", evalSub: "eval"},
		"php":         {lang: "php", codeShort: "rBRE", argShort: "cdz"},
		"lua":         {lang: "lua", codeShort: "e", argShort: "l"},
		"luajit":      {lang: "lua", codeShort: "e", argShort: "l"},
		"Rscript":     {lang: "r", codeShort: "e"},
		"R":           {lang: "r", codeShort: "e"},
		"awk":         {lang: "awk"}, // its command line: gawk.go
		"gawk":        {lang: "awk"}, // its command line: gawk.go
		"mawk":        {lang: "awk"}, // its command line: gawk.go
		"nawk":        {lang: "awk"}, // its command line: gawk.go
		"busybox-awk": {lang: "awk"}, // its command line: gawk.go
		"osascript":   {lang: "applescript", codeShort: "e"},
		"expect":      {lang: "tcl", codeShort: "c"},
		"tclsh":       {lang: "tcl"},
		"wish":        {lang: "tcl"},
		"jjs":         {lang: "node"},
	}
})

// isInterpreterName recognises versioned names such as python3.12 or perl5.36.
func isInterpreterName(n string) bool {
	_, ok := interpreterFor(n)
	return ok
}

func interpreterFor(n string) (*interpSpec, bool) {
	if s, ok := interpreters()[n]; ok {
		return s, true
	}
	base := strings.TrimRight(n, "0123456789.")
	if base != n && base != "" {
		s, ok := interpreters()[base]
		return s, ok
	}
	return nil, false
}

// runInterpreter scans inline code (python -c, perl -e, node -e, awk
// programs), code piped to the interpreter, and python -m modules.
func (a *analyzer) runInterpreter(u *unit) (stream, bool) {
	defer keepPriorCode(u)() // what files its options load do (ruby -r./x, node -r ./x.js)
	spec, _ := interpreterFor(u.name)
	if spec.lang == "awk" {
		return a.runAwk(u), true // gawk.go
	}
	args := u.args
	if spec.evalSub != "" && len(args) > 0 {
		if args[0].val != spec.evalSub {
			if args[0].val == "run" && len(args) > 1 {
				for _, f := range args[1:] {
					if !strings.HasPrefix(f.val, "-") {
						a.scriptFile(u, f, a.script)
						break
					}
				}
			}
			return stream{traits: trUnknown}, true
		}
		args = args[1:]
		if len(args) > 0 {
			u.codeArg = len(u.args)
			a.code(u, spec.lang, args[len(args)-1])
		}
		return stream{traits: trUnknown}, true
	}
	var code *field
	var ops []field
	var perlUse *codeFacts // what perl -M's code does
	loop := false
	off := len(u.args) - len(args) // args is a tail of u.args
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		if len(ops) > 0 || code != nil {
			ops = append(ops, f)
			continue
		}
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if strings.HasPrefix(v, "--") {
			name, val, has := strings.Cut(v, "=")
			switch {
			case contains(spec.codeLong, name):
				g := f
				if has {
					g.val = val
				} else if i+1 < len(args) {
					i++
					g = args[i]
				}
				code = &g
				u.codeArg = off + i + 1
			case contains(spec.argLong, name):
				if !has && i+1 < len(args) {
					i++
					val = args[i].val
				}
				if spec.lang == "node" {
					a.dataURLCode(u, val) // --import 'data:text/javascript,…'
				}
			}
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			ops = append(ops, f)
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			attached := v[j+1:]
			if spec.module != 0 && c == spec.module {
				mod := f
				mod.val = attached
				rest := args[i+1:]
				if attached == "" && len(rest) > 0 {
					mod, rest = rest[0], rest[1:]
				}
				return a.runModule(u, mod, rest), true
			}
			loop = loop || strings.IndexByte(spec.loopShort, c) >= 0
			if strings.IndexByte(spec.codeShort, c) >= 0 {
				g := f
				if spec.lang == "node" && strings.Trim(attached, spec.codeShort) == "" {
					attached = "" // node -pe CODE: -p and -e, the code after
				}
				if attached != "" {
					g.val = attached
				} else if i+1 < len(args) {
					i++
					g = args[i]
				}
				code = &g
				u.codeArg = off + i + 1
				break
			}
			if strings.IndexByte(spec.argShort, c) >= 0 {
				val := attached
				if attached == "" && i+1 < len(args) {
					i++
					val = args[i].val
				}
				switch {
				case spec.lang == "perl" && (c == 'M' || c == 'm'):
					// perl -M'strict;system("…")' is use strict;system("…");
					a.codeText(u, "perl", "use "+val+";")
					perlUse = u.code
				case spec.lang == "node" && c == 'r':
					a.dataURLCode(u, val)
				}
				break
			}
		}
	}
	defer func() {
		if perlUse != nil && u.code != nil && u.code != perlUse {
			u.code.merge(*perlUse)
		}
	}()
	switch {
	case code != nil:
		prev := u.code // what runs before it: LUA_INIT, written modules
		a.code(u, spec.lang, *code)
		if prev != nil && u.code != prev {
			u.code.merge(*prev)
		}
		a.spawnOperands(u, ops, nil)
		if loop && u.code != nil && loopEvalsStdin(spec.lang, code.val) {
			u.code.runsStdin = true // perl -ne 'eval': each input line is code
		}
		a.inputCode(u, spec.lang)
	case len(ops) > 0:
		if text, ok := a.files[fileKey(u.cwd, u.links, ops[0])]; ok && !slices.Contains(fileTexts(text), downloaded) {
			for _, t := range fileTexts(text) {
				a.interpScriptText(u, spec.lang, ops[0].val, t) // a script written earlier on the line (perlscripts.go)
			}
			break
		}
		a.scriptFile(u, ops[0], a.script)
		if u.script != nil && u.script.textKnown {
			a.codeText(u, spec.lang, u.script.text)
		}
	case u.piped:
		a.pipedCode(u, spec.lang)
	}
	if u.code != nil && len(u.code.strs) > 0 {
		// python3 -c 'print("…")' >> ~/.bashrc: any of its strings may be
		// a line of what it prints.
		return stream{traits: trUnknown, lines: strings.Join(u.code.strs, "\n") + "\n"}, true
	}
	return stream{traits: trUnknown}, true
}

// inputCode follows what inline code does with its piped input: run it as
// shell commands (awk '{system($0)}') or as code of its own language
// (exec(sys.stdin.read())).
func (a *analyzer) inputCode(u *unit, lang string) {
	if !u.piped || u.script != nil {
		return
	}
	switch {
	case u.code.runsInput:
		a.codeFromInput(u, u.in)
	case u.code.runsStdin:
		a.pipedCode(u, lang)
	}
}

// pipedCode records that u runs its piped input as code in lang; a known
// text is scanned as such.
func (a *analyzer) pipedCode(u *unit, lang string) {
	s := u.in
	u.script = &s
	if s.textKnown {
		prev := u.code
		a.codeText(u, lang, s.text)
		if prev != nil {
			u.code.merge(*prev)
		}
	}
}

// spawnOperands judges what a line hands inline code that runs a command
// only known at run time (codespawn.go): where the call passes on the
// program's own arguments (perl -e 'exec @ARGV' rm -rf ~), the operands as
// an argument vector after the call's literals and, where it has none, each
// operand and all of them joined as shell text; and the values of awk's
// assignments (-v c='rm -rf ~', or an operand c=…), which system(c) may run.
func (a *analyzer) spawnOperands(u *unit, ops []field, assigns []string) {
	if u.code == nil || len(u.code.spawns) == 0 {
		return
	}
	vals := make([]string, len(ops))
	for i, f := range ops {
		vals[i] = f.val
	}
	for _, v := range append(assigns, vals...) {
		if name, val, ok := strings.Cut(v, "="); ok && isName(name) && isAwk(u.name) {
			a.script(val, nil)
		}
	}
	for _, sp := range u.code.spawns {
		if !sp.argv || len(vals) == 0 {
			continue
		}
		a.runArgv(u.name, append(slices.Clone(sp.prefix), vals...))
		if len(sp.prefix) == 0 {
			for _, v := range vals {
				a.script(v, nil)
			}
			if len(vals) > 1 {
				a.script(strings.Join(vals, " "), nil)
			}
		}
	}
}

// timeitCode judges the statements python -m timeit runs: its operands
// and the setup of -s/--setup, python code each.
func (a *analyzer) timeitCode(u *unit, args []field) {
	var code []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			code = append(code, args[i+1:]...)
			i = len(args)
		case v == "-s" || v == "--setup":
			if i+1 < len(args) {
				i++
				code = append(code, args[i])
			}
		case strings.HasPrefix(v, "--setup="):
			g := args[i]
			g.val = v[len("--setup="):]
			code = append(code, g)
		case strings.HasPrefix(v, "-s"):
			g := args[i]
			g.val = v[2:]
			code = append(code, g)
		case v == "-n" || v == "-r" || v == "-u" || v == "--number" || v == "--repeat" || v == "--unit":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			code = append(code, args[i])
		}
	}
	for _, c := range code {
		prev := u.code
		a.code(u, "python", c)
		if prev != nil {
			u.code.merge(*prev)
		}
	}
}

// dataURLCode judges the code of a data: URL node imports (--import
// 'data:text/javascript,CODE', base64 or percent-encoded).
func (a *analyzer) dataURLCode(u *unit, v string) {
	head, body, ok := strings.Cut(v, ",")
	if !ok || !strings.HasPrefix(strings.ToLower(head), "data:") {
		return
	}
	if strings.HasSuffix(strings.ToLower(head), ";base64") {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			u.script = &stream{traits: trUnknown}
			return
		}
		body = string(b)
	} else if s, err := url.PathUnescape(body); err == nil {
		body = s
	}
	prev := u.code
	a.codeText(u, "node", body)
	if prev != nil {
		u.code.merge(*prev)
	}
}

// isAwk reports whether the interpreter name is one of awk's.
func isAwk(name string) bool {
	spec, ok := interpreterFor(name)
	return ok && spec.lang == "awk"
}

// runModule handles python -m MODULE ARGS as if MODULE were a command
// (python -m pip install --user x is pip install --user x).
func (a *analyzer) runModule(u *unit, mod field, rest []field) stream {
	if mod.val == "timeit" && !mod.dyn {
		a.timeitCode(u, rest)
	}
	fields := append([]field{mod}, rest...)
	in := u.inner(u.name, fields)
	in.env = u.env // the module runs in python's own environment (round 60)
	return a.run(in)
}

// code records what inline interpreter code does and classifies the shell
// commands it runs.
func (a *analyzer) code(u *unit, lang string, f field) {
	if f.dyn || f.src.traits != 0 {
		s := f.src
		if s.traits == 0 {
			s.traits = trUnknown
		}
		u.script = &s
	}
	a.codeText(u, lang, f.val)
	if f.dyn && u.code != nil {
		u.code.dynamic = true
	}
}

func (a *analyzer) codeText(u *unit, lang, text string) {
	lang, text = templateLang(lang, text) // erb's Ruby (templatecode.go)
	facts, shells, argvs := scanCode(lang, text, 0)
	facts.strs = codeStrings(text)
	u.code = &facts
	if len(facts.spawns) > 0 || slices.ContainsFunc(facts.writes, runFile) {
		// c="rm -rf ~"; system(c): any string of the code may be the
		// command; and what code writes into an rc file runs later.
		shells = append(shells, codeStrings(text)...)
	}
	for _, s := range shells {
		a.script(s, nil)
	}
	for _, argv := range argvs {
		a.runArgv(u.name, argv)
	}
	if strings.HasPrefix(lang, "python") {
		a.pyWrittenCode(u, text) // import x, exec(open("x.py").read()) of a file the line wrote
	}
	if lang == "tcl" {
		a.tclWrittenSources(u, text) // source x.tcl (tclcode.go)
	}
	if lang == "lua" {
		a.luaWrittenCode(u, text) // require "x", dofile("x.lua") (luacode.go)
	}
}

// runArgv classifies an argument vector found in code.
func (a *analyzer) runArgv(via string, argv []string) {
	if len(argv) == 0 {
		return
	}
	fields := make([]field, len(argv))
	for i, s := range argv {
		fields[i] = field{val: s, quoted: true}
	}
	u := &unit{kind: kCall, wrappers: []string{via}}
	u.setProgram(fields[0])
	u.args = fields[1:]
	a.run(u)
}

// runPowerShell follows -Command strings and flags -EncodedCommand, which
// runs base64-encoded code.
func (a *analyzer) runPowerShell(u *unit) (stream, bool) {
	for i, f := range u.args {
		l := strings.ToLower(strings.TrimLeft(f.val, "-/"))
		switch {
		case l == "encodedcommand" || l == "enc" || l == "e" || l == "ec" || l == "en" || l == "encoded":
			u.script = &stream{traits: trDecode}
			return stream{traits: trUnknown}, true
		case l == "command" || l == "c":
			u.codeArg = -1 // the words after -Command are joined into code
			if i+1 < len(u.args) {
				j := joinField(u.args[i+1:])
				a.code(u, "powershell", j)
			}
			return stream{traits: trUnknown}, true
		}
	}
	return stream{traits: trUnknown}, true
}
