package classify

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unitKind tells what a unit stands for. Rules mostly look at kCall units;
// the others carry findings that are not a simple command.
type unitKind uint8

const (
	kCall       unitKind = iota // a simple command (possibly with only redirections)
	kFuncDecl                   // a function definition
	kLoop                       // an infinite loop
	kAssign                     // assignments that change how later commands run
	kParseError                 // text the parser rejected, or nesting too deep
)

// unit is one simple command after expansion, with everything the rules need
// to know about it. Units are built by the analyzer and read by the rules.
type unit struct {
	kind     unitKind
	name     string  // normalised program name: basename, no .exe
	prog     string  // the program word as the shell would see it
	dynName  bool    // the program is only known at run time
	nameGlob bool    // the program's name holds an unquoted glob (/bin/r[m]): dynName too
	dynDir   bool    // only the program's directory is known at run time ("$VENV/bin/python")
	nameSrc  stream  // what substitutions in the program word produce
	args     []field // the arguments after the program
	redirs   []redir
	in       stream            // what arrives on standard input
	fdIn     map[string]stream // what here-documents and here-strings feed other descriptors (3<<< text): fd → text
	piped    bool              // standard input comes from a pipe or a redirection
	env      []envVar          // NAME=VALUE prefixes (or statement-level assignments for kAssign)
	wrappers []string          // wrappers around this command, outermost first
	bg       bool              // run in the background (&)
	cwd      string            // working directory set by an earlier literal cd on the line ("" = unknown)
	links    map[string]string // symbolic links made earlier on the line (ln -s): name → target
	dotglob  bool              // dotglob may be on: a glob matches dot names too
	nocase   bool              // nocaseglob may be on: a glob matches names in any case

	// Facts computed by the analyzer for the rules.
	script       *stream    // the shell code this unit runs (shells, eval, source)
	code         *codeFacts // what an interpreter one-liner does
	envFiles     []field    // files the environment tells the program to write (GIT_TRACE=FILE; see traceFileVar)
	envReads     []field    // files the environment tells the program to read (MAGIC=FILE; see envReadVars)
	codeArg      int        // 1 + the index in args of the word that is code (bash -c CODE, python -c CODE); -1: every word is
	selfSpawn    bool       // kFuncDecl/kLoop: spawns copies of itself
	viaXargs     bool       // arguments also come from standard input (xargs)
	argsIn       stream     // with viaXargs: the input xargs turns into arguments
	xargsToken   string     // with viaXargs: what xargs replaces with each input line ({})
	findRoots    []field    // starting points when run by find -exec
	afterListing bool       // a listing of a directory above a credential store ran before it on the line
	findFiltered bool       // with findRoots: a name test before the -exec restricts what {} stands for
	info         string     // detail for pseudo units
	fromIFS      bool       // the program word came from $IFS splitting
	histInWord   bool       // a word holds an interactive history expansion
	gitEnvIn     bool       // git: args already start with the -c words of its environment configuration
	optEnvIn     bool       // args already hold the words of the program's options variables (optionEnvArgs)
}

// redir is one redirection after expansion.
type redir struct {
	op     syntax.RedirOperator
	target field
	fd     string // the descriptor redirected ("" = the operator's default)
}

// envVar is a NAME=VALUE assignment.
type envVar struct {
	name string
	val  field
	elem *elemAssign // name[k]=v with k and v known: the element set
	// name[k]=v whose element the line cannot place (elem nil, or a key
	// elemAssigned refuses): the value written, kept as a possible one.
	written *field
}

// isWrite reports whether the redirection opens its target for writing.
func (r redir) isWrite() bool {
	switch r.op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		return true
	case syntax.DplOut:
		return !isFD(r.target.val)
	}
	return false
}

// isFileRead reports whether the redirection reads a file.
func (r redir) isFileRead() bool {
	switch r.op {
	case syntax.RdrIn, syntax.RdrInOut:
		return true
	case syntax.DplIn:
		return !isFD(r.target.val)
	}
	return false
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// setProgram fills name and prog from the first field.
func (u *unit) setProgram(f field) {
	u.prog = f.val
	u.dynName = f.dyn
	if i := strings.LastIndexByte(f.val, '/'); f.dyn && i >= f.dynEnd && i < len(f.val)-1 && !strings.ContainsAny(f.val[i+1:], "$`") {
		// "$VENV/bin/python", $(npm bin)/eslint: only the directory is
		// dynamic; the program is known by name.
		u.dynName, u.dynDir = false, true
	}
	u.nameSrc = f.src
	u.fromIFS = f.ifs
	u.name = normName(f.val)
	if f.glob && !u.dynName && strings.ContainsAny(u.name, "*?[") {
		if _, err := path.Match(u.name, ""); err == nil {
			// The shell expands it against the file system: which
			// program runs is only known there (a lone "[" is test).
			u.nameGlob, u.dynName = true, true
		}
	}
}

// normName reduces a program word to the name rules match on: the base name,
// without a Windows executable suffix.
func normName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 && i < len(p)-1 {
		p = p[i+1:]
	}
	lower := strings.ToLower(p)
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		if strings.HasSuffix(lower, ext) && len(p) > len(ext) {
			return p[:len(p)-len(ext)]
		}
	}
	return p
}

// vals returns the argument values.
func (u *unit) vals() []string {
	out := make([]string, len(u.args))
	for i, a := range u.args {
		out[i] = a.val
	}
	return out
}

// arg returns the i-th argument value or "".
func (u *unit) arg(i int) string {
	if i < 0 || i >= len(u.args) {
		return ""
	}
	return u.args[i].val
}

// hasFlag reports whether a short option letter (in any cluster such as -rf)
// or one of the long options is present before "--". GNU tools accept
// options after operands, so the whole argument list is scanned, and they
// accept any unambiguous prefix of a long option (rm --rec /): a prefix
// counts as every listed option it begins (an ambiguous one too, which
// getopt refuses: the conservative reading). Use it for options that make a
// command more dangerous; see hasExactFlag for the others.
func (u *unit) hasFlag(short string, long ...string) bool {
	return hasFlag(u.args, short, long...)
}

// hasExactFlag is hasFlag for options whose presence makes a command safer
// (--version, --help, --list, --dry-run …): only the full spelling counts,
// since an abbreviation may as well stand for another option.
func (u *unit) hasExactFlag(short string, long ...string) bool {
	return hasExactFlag(u.args, short, long...)
}

func hasExactFlag(args []field, short string, long ...string) bool {
	return findFlag(args, false, short, long)
}

func hasFlag(args []field, short string, long ...string) bool {
	return findFlag(args, true, short, long)
}

// notAbbrev lists long options that are real options of their own while
// also being the prefix of an option rules look for (pip install --pre is
// not --prefix).
var notAbbrev = newSet("--pre")

func findFlag(args []field, abbrev bool, short string, long []string) bool {
	for i, a := range args {
		v := a.val
		if v == "--" {
			// After an option that may take a value (sort -T -- -o FILE)
			// the -- may be that value: a flag looked for as a danger is
			// looked for past it too.
			if abbrev && i > 0 && mayTakeValue(args[i-1].val) {
				continue
			}
			return false
		}
		if strings.HasPrefix(v, "--") {
			name := v
			if i := strings.IndexByte(v, '='); i >= 0 {
				name = v[:i]
			}
			for _, l := range long {
				if name == l || abbrev && isAbbrev(name, l) {
					return true
				}
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' && short != "" && strings.ContainsAny(v[1:], short) {
			return true
		}
	}
	return false
}

// mayTakeValue reports whether the word v is an option that may take the
// next word as its value: one without "=" (-T, --tmp).
func mayTakeValue(v string) bool {
	return len(v) > 1 && v[0] == '-' && v != "--" && !strings.Contains(v, "=")
}

// isAbbrev reports whether name (--rec) is a shortened spelling of the long
// option l (--recursive).
func isAbbrev(name, l string) bool {
	return len(name) > 2 && len(name) < len(l) && strings.HasPrefix(l, name) &&
		strings.IndexByte(l, '=') < 0 && !notAbbrev.has(name)
}

// operands returns the arguments that are not options.
func (u *unit) operands() []field {
	var out []field
	dd := false
	for _, a := range u.args {
		switch {
		case dd:
			out = append(out, a)
		case a.val == "--":
			dd = true
		case len(a.val) > 1 && a.val[0] == '-':
		default:
			out = append(out, a)
		}
	}
	return out
}

// sub returns the first argument that does not start with '-' and its index
// (the subcommand of git, docker, systemctl …), skipping the values of the
// given options; "", -1 when there is none (also after a final "--").
func (u *unit) sub(withValue ...string) (string, int) {
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "--" {
			if i+1 == len(u.args) {
				break
			}
			return u.args[i+1].val, i + 1
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			for _, o := range withValue {
				if v == o {
					i++
					break
				}
			}
			continue
		}
		return v, i
	}
	return "", -1
}

// normalized renders the unit as the normalised simple command that user
// rules match and results report: program base name and arguments after
// quote removal, joined by single spaces.
func (u *unit) normalized() string { return u.render(true) }

// render renders the unit; without extras it leaves out NAME=VALUE prefixes
// and redirections (the bare command user rules are also matched against).
func (u *unit) render(extras bool) string {
	var sb strings.Builder
	for _, e := range u.env {
		if !extras {
			break
		}
		sb.WriteString(e.name)
		sb.WriteByte('=')
		sb.WriteString(e.val.val)
		sb.WriteByte(' ')
	}
	if u.dynName {
		sb.WriteString(u.prog)
	} else {
		sb.WriteString(u.name)
	}
	for _, a := range u.args {
		sb.WriteByte(' ')
		sb.WriteString(a.val)
	}
	for _, r := range u.redirs {
		if !extras {
			break
		}
		sb.WriteByte(' ')
		sb.WriteString(r.op.String())
		sb.WriteString(r.target.val)
	}
	return strings.TrimSpace(sb.String())
}

// markCode records that the argument f (its first occurrence) is code,
// not a path.
func (u *unit) markCode(f field) {
	for i, a := range u.args {
		if a == f {
			u.codeArg = i + 1
			return
		}
	}
}

// isCodeArg reports whether the i-th argument is code rather than a path.
func (u *unit) isCodeArg(i int) bool { return u.codeArg < 0 || u.codeArg == i+1 }

// inner builds the unit for a command that this unit runs (a wrapper's
// payload), inheriting its input and redirections.
func (u *unit) inner(wrapper string, fields []field) *unit {
	n := &unit{
		kind:         kCall,
		redirs:       u.redirs,
		in:           u.in,
		piped:        u.piped,
		wrappers:     append(append([]string(nil), u.wrappers...), wrapper),
		bg:           u.bg,
		viaXargs:     u.viaXargs,
		xargsToken:   u.xargsToken,
		findRoots:    u.findRoots,
		findFiltered: u.findFiltered,
		cwd:          u.cwd,
		links:        u.links,
		dotglob:      u.dotglob,
		nocase:       u.nocase,
		argsIn:       u.argsIn,
	}
	if wrapper == "xargs" {
		n.argsIn = u.in
	}
	if len(fields) > 0 {
		n.setProgram(fields[0])
		n.args = fields[1:]
	}
	return n
}

// dirOptions are the options that make a program work in another
// directory, so that the operands after them are relative to it (tar -C ~
// -czf x.tgz .ssh reads ~/.ssh).
var dirOptions = map[string][]string{
	"tar": {"-C", "--directory"}, "gtar": {"-C", "--directory"}, "bsdtar": {"-C", "--cd"},
	"git": {"-C"}, "make": {"-C", "--directory"}, "gmake": {"-C", "--directory"},
	"bmake": {"-C"}, "pmake": {"-C"}, "bsdmake": {"-C"}, "remake": {"-C", "--directory"},
}

// dirEqOptions are options, taking a value only after =, that make a
// program extract into a directory below the current one (tar
// --one-top-level=DIR).
var dirEqOptions = map[string][]string{"tar": {"--one-top-level"}, "gtar": {"--one-top-level"}}

// abbrevOf reports whether the long option name abbreviates one of opts
// (tar --dir for --directory).
func abbrevOf(opts []string, name string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") && isAbbrev(name, o) {
			return true
		}
	}
	return false
}

// oldStyleValueLetters are, for programs with an old-style first word
// (tar xfC A.tar DIR), the option letters in it that take the next words,
// in order, as their values.
var oldStyleValueLetters = map[string]string{"tar": "bCfFgHIKLNTVX", "gtar": "bCfFgHIKLNTVX", "bsdtar": "bCfIsT"}

// oldStyleValues returns, for an old-style first word (a cluster of option
// letters without a dash), each value-taking letter's value index in args;
// n is how many words after the cluster are such values.
func oldStyleValues(name string, args []field) (vals map[byte]int, n int) {
	letters, ok := oldStyleValueLetters[name]
	if !ok || len(args) == 0 {
		return nil, 0
	}
	v := args[0].val
	if v == "" || v[0] == '-' || args[0].dyn {
		return nil, 0
	}
	for i := 0; i < len(v); i++ {
		if !(v[i] >= 'a' && v[i] <= 'z' || v[i] >= 'A' && v[i] <= 'Z') {
			return nil, 0
		}
	}
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(letters, v[i]) >= 0 && 1+n < len(args) {
			if vals == nil {
				vals = map[byte]int{}
			}
			n++
			vals[v[i]] = n // a repeated letter: the last one counts
		}
	}
	return vals, n
}

// dirAt returns the working directory in effect for the i-th argument:
// the directory an earlier cd set, changed by the program's own -C DIR
// options before it ("" = unknown).
func (u *unit) dirAt(i int) string {
	opts, ok := dirOptions[u.name]
	if !ok || u.dynName {
		return u.cwd
	}
	dir := u.cwd
	start := 0
	if vals, n := oldStyleValues(u.name, u.args); n > 0 {
		// tar xfC A.tar DIR: C's value is a word after the cluster.
		if k, ok := vals['C']; ok && contains(opts, "-C") && k < i && !u.args[k].dyn {
			dir = optionDir(dir, u.args[k])
		} else if ok && k < i {
			dir = ""
		}
		start = 1 + n
	}
	for j := start; j < i && j < len(u.args); j++ {
		v := u.args[j].val
		var d field
		switch {
		case contains(opts, v) && j+1 < i:
			j++
			d = u.args[j]
		case strings.HasPrefix(v, "--") && strings.Contains(v, "=") && contains(opts, v[:strings.IndexByte(v, '=')]):
			d = u.args[j]
			d.val = v[strings.IndexByte(v, '=')+1:]
		case len(v) > 2 && v[1] != '-' && contains(opts, v[:2]):
			d = u.args[j] // -CDIR
			d.val = v[2:]
		case v == "--":
			return dir
		case strings.HasPrefix(v, "--") && strings.Contains(v, "=") && (abbrevOf(opts, v[:strings.IndexByte(v, '=')]) || contains(dirEqOptions[u.name], v[:strings.IndexByte(v, '=')])):
			d = u.args[j] // --dir=DIR, tar --one-top-level=DIR
			d.val = v[strings.IndexByte(v, '=')+1:]
		case strings.HasPrefix(v, "--") && abbrevOf(opts, v) && j+1 < i:
			j++
			d = u.args[j] // --dir DIR
		case len(v) > 2 && v[0] == '-' && v[1] != '-' && oldStyleValueLetters[u.name] != "":
			// A dash cluster (tar -xC /etc, -xC/etc): the first letter
			// that takes a value takes the rest of the word or the next.
			k := strings.IndexAny(v[1:], oldStyleValueLetters[u.name]) + 1
			if k == 0 {
				continue
			}
			switch {
			case v[k] != 'C' || !contains(opts, "-C"):
				if k+1 == len(v) {
					j++
				}
				continue
			case k+1 < len(v):
				d = u.args[j]
				d.val = v[k+1:]
			case j+1 < i:
				j++
				d = u.args[j]
			default:
				continue
			}
		default:
			continue
		}
		if d.dyn {
			dir = ""
			continue
		}
		dir = optionDir(dir, d)
	}
	return dir
}

// optionDir returns the directory a -C DIR option enters from dir
// (relative to an unknown directory, the path stays relative). The
// home's parent stays homeParentDir, as for cd (tar -C ~/.. $USER).
func optionDir(dir string, d field) string {
	raw := resolveIn(dir, d).val
	if atHomeParent(raw) {
		return homeParentDir
	}
	return cleanTarget(raw)
}

// resolveIn makes a relative path f relative to dir ("" = unknown), and
// resolves a directory alias (/proc/self/cwd) in it.
func resolveIn(dir string, f field) field {
	known := dir
	if dir == cwdMaybeHome {
		known = ""
	}
	if g, ok := resolveAlias(known, f); ok {
		return g
	}
	if dir == "" || f.dynPrefix || f.val == "" || strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, "~") {
		return f
	}
	g := f
	if dir == cwdMaybeHome {
		// After cd $X: a run-time directory that is the home when X is empty.
		g.val, g.bare = "$PWD/"+f.val, "~/"+f.bare
		g.dyn, g.dynPrefix = true, true
		return g
	}
	g.val = dir + "/" + f.val
	return g
}

// chdir sets the working directory a wrapper gives its command (env -C DIR).
func (u *unit) chdir(dir field) {
	if dir.dyn {
		u.cwd = ""
		return
	}
	u.cwd = cleanTarget(u.resolve(dir).val)
}

// resolve makes a relative path operand absolute (or home-relative) when an
// earlier cd on the line says where the command runs: cd / && rm -rf *.
func (u *unit) resolve(f field) field { return resolveIn(u.cwd, followLinks(u.links, f)) }
