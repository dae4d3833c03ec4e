package classify

import (
	"path"
	"strings"
)

// The awk family's command line, read as gawk reads it (getopt with
// "+F:f:v:W;bcCd::D::e:E:ghi:l:L::nNo::Op::MPrSstVYZ:" and its long
// options, abbreviated as getopt allows, -W NAME standing for --NAME): the
// program is the first operand only when no -e/--source, -f/--file or
// -E/--exec gave one, and every option that takes a value takes it (gawk
// -i inplace PROG, --assign x=1 PROG, -W source PROG). One table serves
// awk, gawk, mawk, nawk and busybox's awk: gawk's options are a superset
// of the others' (mawk's -W exec FILE is gawk's). Found by red-team round
// 58.

// awkValue says what the value of an awk option is.
type awkValue uint8

const (
	awkFlag    awkValue = iota // no value
	awkPlain                   // -F FS, -L fatal: nothing the classifier follows
	awkAssign                  // -v NAME=VALUE
	awkSource                  // -e PROGRAM-TEXT
	awkProg                    // -f FILE: program source
	awkExec                    // -E FILE: program source, and the last option
	awkInclude                 // -i FILE: a source library (AWKPATH, .awk added)
	awkLoad                    // -l LIB: an extension
	awkOutput                  // -o FILE, -p FILE, -d FILE: a file gawk writes
	awkDebug                   // -D FILE: debugger commands read from FILE
)

// awkOpt is one option: its letter (0 for none), long name, the kind of
// its value and whether that value is optional (then only attached:
// -dFILE, --dump-variables=FILE).
type awkOpt struct {
	short    byte
	long     string
	value    awkValue
	optional bool
}

var awkOpts = []awkOpt{
	{'f', "--file", awkProg, false},
	{'F', "--field-separator", awkPlain, false},
	{'v', "--assign", awkAssign, false},
	{'e', "--source", awkSource, false},
	{'E', "--exec", awkExec, false},
	{'i', "--include", awkInclude, false},
	{'l', "--load", awkLoad, false},
	{'d', "--dump-variables", awkOutput, true},
	{'o', "--pretty-print", awkOutput, true},
	{'p', "--profile", awkOutput, true},
	{'D', "--debug", awkDebug, true},
	{'L', "--lint", awkPlain, true},
	{'Z', "--locale", awkPlain, false},
	{0, "--persist", awkOutput, true},
	{'b', "--characters-as-bytes", awkFlag, false},
	{'c', "--traditional", awkFlag, false},
	{'C', "--copyright", awkFlag, false},
	{'g', "--gen-pot", awkFlag, false},
	{'h', "--help", awkFlag, false},
	{'I', "--trace", awkFlag, false},
	{'M', "--bignum", awkFlag, false},
	{'N', "--use-lc-numeric", awkFlag, false},
	{'n', "--non-decimal-data", awkFlag, false},
	{'O', "--optimize", awkFlag, false},
	{'P', "--posix", awkFlag, false},
	{'r', "--re-interval", awkFlag, false},
	{'s', "--no-optimize", awkFlag, false},
	{'S', "--sandbox", awkFlag, false},
	{'t', "--lint-old", awkFlag, false},
	{'V', "--version", awkFlag, false},
	{0, "--csv", awkFlag, false},
	{0, "--nostalgia", awkFlag, false},
}

// awkLine is an awk command line read.
type awkLine struct {
	sources  []field  // program text: -e/--source values, or the program operand
	progOp   *field   // the operand that is the program, if one is
	files    []field  // program files: -f, -E
	includes []field  // -i/--include libraries
	loads    []field  // -l/--load extensions
	debug    []field  // -D FILE
	assigns  []string // -v NAME=VALUE
	outputs  []field  // -o, -p, -d files (and --persist)
	ops      []field  // the operands after the program: input files, NAME=VALUE
}

// awkShort returns the option of a letter.
func awkShort(c byte) (awkOpt, bool) {
	for _, o := range awkOpts {
		if o.short == c {
			return o, true
		}
	}
	return awkOpt{}, false
}

// awkLong returns the option a long name (or an unambiguous abbreviation
// of one) names.
func awkLong(name string) (awkOpt, bool) {
	var found []awkOpt
	for _, o := range awkOpts {
		if o.long == name {
			return o, true
		}
		if isAbbrev(name, o.long) {
			found = append(found, o)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return awkOpt{}, false
}

// parseAwk reads an awk command line's arguments.
func parseAwk(args []field) awkLine {
	var l awkLine
	var rest []field
	exec := false
	// take records an option's value; it reports whether the next word
	// was used.
	take := func(o awkOpt, f field, attached string, has bool, i int) bool {
		used := false
		if !has && !o.optional && i+1 < len(args) {
			f, used = args[i+1], true
		} else {
			f.val = attached
			if !has {
				return false
			}
		}
		switch o.value {
		case awkAssign:
			l.assigns = append(l.assigns, f.val)
		case awkSource:
			l.sources = append(l.sources, f)
		case awkProg:
			l.files = append(l.files, f)
		case awkExec:
			l.files = append(l.files, f)
			exec = true
		case awkInclude:
			l.includes = append(l.includes, f)
		case awkLoad:
			l.loads = append(l.loads, f)
		case awkOutput:
			l.outputs = append(l.outputs, f)
		case awkDebug:
			l.debug = append(l.debug, f)
		}
		return used
	}
	// long reads --NAME[=VALUE] (or -W NAME[=VALUE]) at args[i].
	long := func(f field, v string, i int) bool {
		name, val, has := strings.Cut(v, "=")
		o, ok := awkLong(name)
		if !ok || o.value == awkFlag {
			return false
		}
		return take(o, f, val, has, i)
	}
	i := 0
args:
	for ; i < len(args) && !exec; i++ {
		f := args[i]
		v := f.val
		switch {
		case v == "--":
			i++
			break args
		case len(v) < 2 || v[0] != '-':
			break args // gawk stops at the first operand
		case strings.HasPrefix(v, "--"):
			if long(f, v, i) {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if c == 'W' {
				w := f
				w.val = v[j+1:]
				if w.val == "" && i+1 < len(args) {
					i++
					w = args[i]
				}
				if long(w, "--"+w.val, i) {
					i++
				}
				break
			}
			o, ok := awkShort(c)
			if !ok || o.value == awkFlag {
				continue
			}
			if take(o, f, v[j+1:], j+1 < len(v), i) {
				i++
			}
			break
		}
	}
	rest = args[min(i, len(args)):]
	if len(l.sources) == 0 && len(l.files) == 0 && len(rest) > 0 {
		p := rest[0]
		l.progOp, l.sources, rest = &p, []field{p}, rest[1:]
	}
	l.ops = rest
	return l
}

// source returns the program text given on the line (-e words joined by
// newlines, as gawk joins them) as one field.
func (l awkLine) source() (field, bool) {
	if len(l.sources) == 0 {
		return field{}, false
	}
	if len(l.sources) == 1 {
		return l.sources[0], true
	}
	f := l.sources[0]
	var texts []string
	for _, s := range l.sources {
		texts = append(texts, s.val)
		f.dyn = f.dyn || s.dyn
		f.src.traits |= s.src.traits
	}
	f.val = strings.Join(texts, "\n")
	return f, true
}

// inPlace reports whether gawk edits its input files in place: the
// inplace library included (-i inplace, --include=inplace.awk, @include
// "inplace" in the program) or its extension loaded.
func (l awkLine) inPlace() bool {
	for _, f := range append(append([]field(nil), l.includes...), l.loads...) {
		if awkLibName(f.val) == "inplace" {
			return true
		}
	}
	for _, s := range l.sources {
		for _, d := range awkDirectives(s.val, "@include", "@load") {
			if awkLibName(d) == "inplace" {
				return true
			}
		}
	}
	return false
}

// awkLibName is a library's name without directory and suffix.
func awkLibName(v string) string {
	b := path.Base(v)
	for _, ext := range []string{".awk", ".so"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// awkDirective finds @include "FILE" and @load "LIB" in awk source.
var awkDirective = lazyRegexp(`(@include|@load|@namespace)\s*"((?:[^"\\]|\\.)*)"`)

// awkDirectives returns the files of the named directives in text.
func awkDirectives(text string, names ...string) []string {
	var out []string
	for _, m := range awkDirective().FindAllStringSubmatch(text, -1) {
		if contains(names, m[1]) {
			out = append(out, m[2])
		}
	}
	return out
}

// runAwk judges an awk command: its program text, the commands it runs
// and what the line hands them, and what it does with piped input.
func (a *analyzer) runAwk(u *unit) stream {
	l := parseAwk(u.args)
	if l.progOp != nil {
		u.markCode(*l.progOp)
	} else if len(l.sources) > 0 {
		u.markCode(l.sources[0])
	}
	if src, ok := l.source(); ok {
		prev := u.code // the written files awkWrittenCode read
		a.code(u, "awk", src)
		if prev != nil {
			u.code.merge(*prev)
		}
	}
	for _, f := range l.files {
		if _, written := a.files[fileKey(u.cwd, u.links, f)]; !written && u.script == nil {
			// -f /dev/stdin, -f <(curl …), a glob (awkWrittenCode
			// follows the files the line wrote).
			a.scriptFile(u, f, func(t string, _ *stream) stream { a.moreCode(u, "awk", t); return stream{} })
		}
	}
	if u.code != nil {
		a.spawnOperands(u, l.ops, l.assigns)
		a.inputCode(u, "awk")
	}
	if u.code != nil && len(u.code.strs) > 0 {
		return stream{traits: trUnknown, lines: strings.Join(u.code.strs, "\n") + "\n"}
	}
	return stream{traits: trUnknown}
}

// awkWrittenCode judges the awk source files the line wrote that gawk
// reads: -f and -E files, -i libraries and @include files (found as gawk
// finds them: the name, then NAME.awk, in each directory of AWKPATH,
// default "." first, unless the name holds a /), and -D debugger commands
// (as awk code: their eval runs it).
func (a *analyzer) awkWrittenCode(u *unit) {
	l := parseAwk(u.args)
	a.awkWrittenExtensions(u, l)
	dirs := []string{"."}
	if p, ok := a.envField(u, "AWKPATH"); ok && !p.dyn {
		dirs = strings.Split(p.val, ":")
	}
	var names []string
	seen := map[string]bool{}
	for _, f := range append(append(append([]field(nil), l.files...), l.includes...), l.debug...) {
		if !f.dyn {
			names = append(names, f.val)
		}
	}
	for _, s := range l.sources {
		names = append(names, awkDirectives(s.val, "@include")...)
	}
	for len(names) > 0 {
		n := names[0]
		names = names[1:]
		for _, p := range awkSearch(n, dirs) {
			k := fileKey(u.cwd, u.links, field{val: p})
			if seen[k] {
				continue
			}
			seen[k] = true
			for _, t := range a.writtenTexts(u, nil, field{val: p}) {
				a.moreCode(u, "awk", t)
				names = append(names, awkDirectives(t, "@include")...) // nested @include
			}
		}
	}
}

// awkWrittenExtensions marks u as running code only known at run time
// where it loads an extension (-l, @load) the line wrote: a shared object
// found as NAME or NAME.so, on AWKLIBPATH when the line gives it.
func (a *analyzer) awkWrittenExtensions(u *unit, l awkLine) {
	var dirs []string
	if p, ok := a.envField(u, "AWKLIBPATH"); ok && !p.dyn {
		dirs = strings.Split(p.val, ":")
	}
	var names []string
	for _, f := range l.loads {
		names = append(names, f.val)
	}
	for _, s := range l.sources {
		names = append(names, awkDirectives(s.val, "@load")...)
	}
	for _, n := range names {
		cands := []string{n, n + ".so"}
		if !strings.Contains(n, "/") {
			cands = nil
			for _, d := range dirs {
				cands = append(cands, path.Join(d, n), path.Join(d, n+".so"))
			}
		}
		for _, c := range cands {
			if _, ok := a.files[fileKey(u.cwd, u.links, field{val: c})]; ok && len(a.writtenTexts(u, nil, field{val: c})) > 0 && u.script == nil {
				u.script = &stream{traits: trUnknown} // a library of the line's: its code is not text
			}
		}
	}
}

// awkSearch returns the paths gawk may open for a source file name.
func awkSearch(name string, dirs []string) []string {
	cands := []string{name}
	if !strings.HasSuffix(name, ".awk") {
		cands = append(cands, name+".awk")
	}
	if strings.Contains(name, "/") {
		return cands
	}
	var out []string
	for _, d := range dirs {
		if d == "" {
			d = "."
		}
		for _, c := range cands {
			out = append(out, path.Join(d, c))
		}
	}
	return out
}

// awkWriteTargets returns the files an awk command writes: its input files
// when it edits them in place (gawk -i inplace), and the files of -o, -p
// and -d.
func awkWriteTargets(u *unit) []field {
	l := parseAwk(u.args)
	out := append([]field(nil), l.outputs...)
	if l.inPlace() {
		out = append(out, awkInputFiles(l)...)
	}
	return out
}

// awkInputFiles returns the operands that are files, not NAME=VALUE
// assignments.
func awkInputFiles(l awkLine) []field {
	var out []field
	for _, f := range l.ops {
		if name, _, ok := strings.Cut(f.val, "="); ok && isName(name) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// awkInPlace judges gawk -i inplace editing a run file (~/.bashrc), as
// perl -i is: the program's strings as text it may print there, and the
// edit as unknown text.
func (a *analyzer) awkInPlace(u *unit) {
	l := parseAwk(u.args)
	if !l.inPlace() || !runFileIn(u, awkInputFiles(l)) {
		return
	}
	for _, s := range l.sources {
		for _, t := range codeStrings(s.val) {
			a.judgeText(t)
		}
	}
	a.unknownRunText(u, "gawk -i inplace edits a file a shell runs")
}
