package classify

import (
	"regexp"
	"strings"
)

// Text processors that run code found in their input (found by red-team
// round 58): m4's syscmd and esyscmd run a shell command, erb (Ruby's
// template tool) runs the Ruby of its <% %> tags and of its lines that
// start with %. Each is an interpreter of its input: piped text, the files
// it reads that the line wrote, m4's -D values and the files m4 includes
// are judged as the code they are.

// templateTool is one such processor: the language its input is scanned
// as, its options that take the next word as a value, the options whose
// NAME=VALUE gives text of its input (m4 -D), load a library or name a
// file it writes.
type templateTool struct {
	lang     string
	argShort string
	argLong  []string
	defShort string
	defLong  string
	reqShort string                // erb -r LIB: a library of the code's language, loaded first
	outShort string                // options naming a file it writes (m4 -F FILE)
	outLong  []string              // (m4 --freeze-state FILE, --debugfile=FILE)
	include  func() *regexp.Regexp // a directive that reads another file as input (lazyRegexp)
}

var templateTools = map[string]templateTool{
	"m4": {lang: "m4", argShort: "DIUHLFRlt", defShort: "D", defLong: "--define", outShort: "F",
		outLong: []string{"--freeze-state", "--debugfile"},
		argLong: []string{"--define", "--include", "--undefine", "--hashsize", "--nesting-limit", "--freeze-state",
			"--reload-state", "--arglength", "--trace"},
		include: lazyRegexp("\\b(?:m4_)?s?include\\(\\s*`?([^)'`\\s]+)'?\\s*\\)")},
	"erb": {lang: "erb", argShort: "rTES", reqShort: "r"},
}

// templateLine is a template tool's command line read.
type templateLine struct {
	ops  []field  // the files it reads
	defs []string // input text given by options (m4 -D NAME=VALUE)
	reqs []field  // libraries it loads (erb -r)
	outs []field  // files it writes (m4 -F, --debugfile=)
}

// parseTemplate reads a template tool's arguments.
func parseTemplate(t templateTool, args []field) templateLine {
	var l templateLine
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		switch {
		case v == "--":
			l.ops = append(l.ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v, "=")
			if !has && (contains(t.argLong, name) || abbrevOf(t.argLong, name)) && i+1 < len(args) {
				i++
				f, val = args[i], args[i].val
			}
			f.val = val
			switch {
			case t.defLong != "" && (name == t.defLong || isAbbrev(name, t.defLong)):
				l.defs = append(l.defs, defineValue(val)...)
			case (contains(t.outLong, name) || abbrevOf(t.outLong, name)) && val != "":
				l.outs = append(l.outs, f)
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(t.argShort, c) < 0 {
					continue
				}
				g := f
				g.val = v[j+1:]
				if g.val == "" && i+1 < len(args) {
					i++
					g = args[i]
				}
				switch {
				case strings.IndexByte(t.defShort, c) >= 0:
					l.defs = append(l.defs, defineValue(g.val)...)
				case strings.IndexByte(t.reqShort, c) >= 0:
					l.reqs = append(l.reqs, g)
				case strings.IndexByte(t.outShort, c) >= 0:
					l.outs = append(l.outs, g)
				}
				break
			}
		default:
			l.ops = append(l.ops, f)
		}
	}
	return l
}

// templateWriteTargets returns the files a template tool's options write
// (m4 -F FILE, --debugfile=FILE).
func templateWriteTargets(u *unit) []field {
	t, ok := templateTools[u.name]
	if !ok {
		return nil
	}
	return parseTemplate(t, u.args).outs
}

// runTemplate judges an m4 or erb command: the code of each text it reads.
func (a *analyzer) runTemplate(u *unit) (stream, bool) {
	t := templateTools[u.name]
	l := parseTemplate(t, u.args)
	texts, ops := l.defs, l.ops
	for _, r := range l.reqs {
		for _, ext := range []string{"", ".rb"} {
			g := r
			g.val += ext
			for _, w := range a.writtenTexts(u, nil, g) {
				a.moreCode(u, "ruby", w) // erb -r ./x of a written x.rb
			}
		}
	}
	for _, text := range texts {
		a.moreCode(u, t.lang, text)
	}
	read := func(text string, _ *stream) stream { a.templateText(u, t, text, map[string]bool{}); return stream{} }
	if len(ops) == 0 && u.piped {
		a.templateStdin(u, t)
	}
	for _, f := range ops {
		if f.val == "-" && u.piped {
			a.templateStdin(u, t)
			continue
		}
		if ws := a.writtenTexts(u, nil, f); len(ws) > 0 {
			for _, w := range ws {
				read(w, nil)
			}
			continue
		}
		if u.script == nil {
			a.scriptFile(u, f, read) // <(curl …), /dev/stdin
		}
	}
	return stream{traits: trUnknown}, true
}

// templateStdin judges the piped input of a template tool as its code.
func (a *analyzer) templateStdin(u *unit, t templateTool) {
	prev := u.code
	a.pipedCode(u, t.lang)
	if prev != nil && u.code != nil && u.code != prev {
		u.code.merge(*prev)
	}
	if u.in.textKnown {
		a.templateIncludes(u, t, u.in.text, map[string]bool{})
	}
}

// templateText judges one text the tool reads, then the files it
// includes that the line wrote.
func (a *analyzer) templateText(u *unit, t templateTool, text string, seen map[string]bool) {
	a.moreCode(u, t.lang, text)
	a.templateIncludes(u, t, text, seen)
}

// templateIncludes follows the include directives of text to files the
// line wrote.
func (a *analyzer) templateIncludes(u *unit, t templateTool, text string, seen map[string]bool) {
	if t.include == nil {
		return
	}
	for _, m := range t.include().FindAllStringSubmatch(text, -1) {
		k := fileKey(u.cwd, u.links, field{val: m[1]})
		if seen[k] {
			continue
		}
		seen[k] = true
		for _, w := range a.writtenTexts(u, nil, field{val: m[1]}) {
			a.templateText(u, t, w, seen)
		}
	}
}

// defineValue is the text of m4's -D NAME=VALUE: VALUE, which m4 reads as
// input where NAME is used.
func defineValue(v string) []string {
	if _, val, ok := strings.Cut(v, "="); ok && val != "" {
		return []string{val}
	}
	return nil
}

// m4ShellCall finds a call of m4's shell macros (also with -P's m4_
// prefix), the argument list following.
var m4ShellCall = lazyRegexp(`(?:^|[^A-Za-z0-9_])(?:m4_)?e?syscmd\(`)

// m4Opaque finds the macros with which m4 text can put a macro's name
// together: their expansion is read again with the text after it
// (define(S,sys)S()cmd(…) and ifelse(a,a,sys)cmd(…) run syscmd), or
// computed from their arguments. With any of them the commands the text
// runs are not known.
var m4Opaque = lazyRegexp(`(?:^|[^A-Za-z0-9_])(?:m4_)?(define|pushdef|indir|builtin|defn|ifelse|ifdef|translit|patsubst|regexp|substr|format|changequote|changeword|changecom|m4wrap)\b`)

// m4Code returns the shell commands m4 text runs (the first argument of
// each syscmd and esyscmd, quotes removed) and whether it may run others
// the classifier cannot see.
func m4Code(text string) (cmds []string, opaque bool) {
	for _, loc := range m4ShellCall().FindAllStringIndex(text, -1) {
		if arg, ok := m4FirstArg(text[loc[1]:]); ok {
			cmds = append(cmds, arg)
		} else {
			opaque = true
		}
	}
	return cmds, opaque || m4Opaque().MatchString(text)
}

// m4FirstArg reads the first argument of a macro call whose "(" has been
// read: leading blanks dropped, one level of `…' quotes removed, up to the
// "," or ")" that closes it outside quotes and nested parentheses.
func m4FirstArg(s string) (string, bool) {
	args, _, ok := m4ArgList(strings.TrimLeft(s, " \t\n"), '`', '\'', true)
	if !ok {
		return "", false
	}
	return args[0], true
}

// erbTag finds erb's tags: <% code %>, <%= expr %>, <%- … -%>; <%% is a
// literal <% and <%# a comment.
var erbTag = lazyRegexp(`(?s)<%(?:[=-])?(.*?)-?%>`)

// erbRuby returns the Ruby an erb template runs: its tags' code and its
// lines that start with % (%% is a literal %), one statement a line.
func erbRuby(text string) string {
	var out []string
	for _, m := range erbTag().FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && text[m[0]-1] == '<' || strings.HasPrefix(text[m[0]:], "<%%") || strings.HasPrefix(text[m[2]:], "#") {
			continue
		}
		out = append(out, text[m[2]:m[3]])
	}
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "%") && !strings.HasPrefix(l, "%%") {
			out = append(out, strings.TrimSuffix(l[1:], "\n"))
		}
	}
	return strings.Join(out, "\n")
}

// templateLang turns the text of a template language into the code it
// runs: erb's Ruby; other languages' text is returned as it is.
func templateLang(lang, text string) (string, string) {
	if lang == "erb" {
		return "ruby", erbRuby(text)
	}
	return lang, text
}
