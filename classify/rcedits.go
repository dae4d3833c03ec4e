package classify

import "strings"

// In-place edits of a file a shell runs later (an rc file): the text they
// add is judged as if it ran, as for the writes of writeforms.go. Where
// the classifier cannot know that text (perl -i code, an ed script it
// cannot read), the edit is judged like unknown text written there
// (eval-exec, escalated).

// runFileIn reports whether one of the files u edits is a file a shell runs
// later, directly or through a link the line made.
func runFileIn(u *unit, files []field) bool {
	for _, f := range files {
		if !f.dyn && (runFile(f.val) || runFile(writeThrough(u.links, f.val))) {
			return true
		}
	}
	return false
}

// judgeText judges each line of text added to a run file as if it ran.
func (a *analyzer) judgeText(text string) {
	if strings.TrimSpace(text) != "" {
		a.script(text+"\n", nil)
	}
}

// unknownRunText judges an in-place edit of a run file whose new text is
// only known at run time, like echo "$X" >> ~/.bashrc.
func (a *analyzer) unknownRunText(u *unit, why string) {
	a.emit(&unit{kind: kCall, name: u.name, prog: u.prog, args: u.args, cwd: u.cwd,
		script: &stream{traits: trUnknown}, info: why})
}

// sedSubst finds sed's s commands: group 1 is the delimiter, and what
// follows it the pattern, replacement and flags.
var sedSubst = lazyRegexp(`(?:^|[;{}\n])\s*(?:(?:[0-9]+|\$|/[^/\n]*/)(?:\s*,\s*(?:[0-9]+|\$|/[^/\n]*/))?)?\s*!?\s*s([^\s\\a-zA-Z0-9])`)

// sedSubstLines returns the text an s command's replacement puts on lines
// of their own: what follows a newline in it (\n, or a backslash and a
// newline), the rest of the line being the one matched.
func sedSubstLines(script string) []string {
	var out []string
	for _, m := range sedSubst().FindAllStringSubmatchIndex(script, -1) {
		delim := script[m[2]]
		rest := script[m[3]:]
		_, n := sedPart(rest, delim) // the pattern
		repl, _ := sedPart(rest[n:], delim)
		if _, after, ok := strings.Cut(repl, "\n"); ok {
			out = append(out, after)
		}
	}
	return out
}

// sedPart reads one part of an s command up to the unescaped delimiter and
// returns it unescaped (\n a newline, \X X) and the bytes read.
func sedPart(s string, delim byte) (string, int) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == delim:
			return b.String(), i + 1
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(s)
}

// perlInPlace judges perl -i editing a run file: its code's string
// literals as text it may print there, and the edit as unknown text.
func (a *analyzer) perlInPlace(u *unit) {
	code, files, inPlace := perlCodeAndFiles(u)
	if !inPlace || !runFileIn(u, files) {
		return
	}
	for _, m := range perlString().FindAllStringSubmatch(code, -1) {
		a.judgeText(perlUnescape(m[1] + m[2]))
	}
	a.unknownRunText(u, "perl -i edits a file a shell runs")
}

// perlString finds perl's quoted strings: "…" (group 1) and '…' (group 2).
var perlString = lazyRegexp(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`)

// perlUnescape resolves the escapes of a perl string that matter to a
// shell reading it: \n, \t and \X.
func perlUnescape(s string) string {
	return perlEscape().ReplaceAllStringFunc(s, func(e string) string {
		switch e[1] {
		case 'n':
			return "\n"
		case 't':
			return "\t"
		}
		return e[1:]
	})
}

var perlEscape = lazyRegexp(`\\.`)

// perlCodeAndFiles returns perl's -e/-E code (joined by newlines), the
// files it edits and whether -i (in place) is given. Clusters are read as
// perl does: -i, -I, -M, -m, -x, -C, -0, -l, -d, -D take the rest of the
// cluster, -e and -E the rest or the next argument.
func perlCodeAndFiles(u *unit) (code string, files []field, inPlace bool) {
	var codes []string
	hasCode := false
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "--" {
			files = append(files, u.args[i+1:]...)
			break
		}
		if len(v) < 2 || v[0] != '-' || v[1] == '-' {
			files = append(files, u.args[i:]...)
			break
		}
	cluster:
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'i':
				inPlace = true
				break cluster
			case 'e', 'E':
				hasCode = true
				switch {
				case j+1 < len(v):
					codes = append(codes, v[j+1:])
				case i+1 < len(u.args):
					i++
					codes = append(codes, u.args[i].val)
				}
				break cluster
			case 'I', 'M', 'm', 'x', 'C', '0', 'l', 'd', 'D':
				break cluster
			}
		}
	}
	if !hasCode && len(files) > 0 {
		files = files[1:] // the script file
	}
	return strings.Join(codes, "\n"), files, inPlace
}

// edInserts judges ed editing a run file: the text of the a, i and c
// commands of its script (read from standard input), or, with a script
// it cannot read, the edit as unknown text. ex (vim) scripts are not read.
func (a *analyzer) edInserts(u *unit) {
	var files []field
	for i := 0; i < len(u.args); i++ {
		switch v := u.args[i].val; {
		case v == "-p" || v == "--prompt":
			i++
		case strings.HasPrefix(v, "-") && len(v) > 1 && u.name != "ex":
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
		default:
			files = append(files, u.args[i])
		}
	}
	if !runFileIn(u, files) {
		return
	}
	if u.name == "ex" || !u.in.textKnown {
		a.unknownRunText(u, u.name+" edits a file a shell runs")
		return
	}
	for _, t := range edTexts(u.in.text) {
		a.judgeText(t)
	}
	for _, l := range sedSubstLines(u.in.text) {
		a.judgeText(l)
	}
}

// edCommand matches an ed command line that reads text (a, i, c), with
// an optional address.
var edCommand = lazyRegexp(`^\s*(?:(?:[0-9]+|\$|\.|/[^/]*/)(?:\s*,\s*(?:[0-9]+|\$|\.|/[^/]*/))?|,)?\s*[aic]\s*$`)

// edTexts returns the text blocks of an ed script's a, i and c commands:
// the lines after the command up to a line holding only a dot.
func edTexts(script string) []string {
	var out []string
	var block []string
	in := false
	for _, l := range strings.Split(script, "\n") {
		switch {
		case in && l == ".":
			out, block, in = append(out, strings.Join(block, "\n")), nil, false
		case in:
			block = append(block, l)
		case edCommand().MatchString(l):
			in = true
		}
	}
	if in {
		out = append(out, strings.Join(block, "\n"))
	}
	return out
}
