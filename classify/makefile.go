package classify

import (
	"strings"
)

// Make's code: the makefile snippets make --eval/-E takes, and the shell
// commands a makefile's text runs (runExecOptions, escapes.go).

// makeValueShort are make's short options that take a value.
const makeValueShort = "CEfIoW"

// makeEvals returns make's makefile snippets: --eval S, --eval=S and its
// abbreviations (--ev=S, --eva S), -E S, -ES and -E at the end of a
// cluster (-sE S).
func makeEvals(args []field) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			break
		}
		var val *field
		switch {
		case strings.HasPrefix(v, "--"):
			name, rest, eq := strings.Cut(v, "=")
			if name != "--eval" && !isAbbrev(name, "--eval") {
				continue
			}
			if eq {
				f := args[i]
				f.val = rest
				val = &f
			} else if i+1 < len(args) {
				i++
				val = &args[i]
			}
		case len(v) > 1 && v[0] == '-':
			k := strings.IndexAny(v[1:], makeValueShort) + 1
			switch {
			case k == 0:
			case v[k] != 'E':
				if k+1 == len(v) {
					i++ // -f FILE, -C DIR
				}
			case k+1 < len(v):
				f := args[i]
				f.val = v[k+1:]
				val = &f
			case i+1 < len(args):
				i++
				val = &args[i]
			}
		}
		if val != nil {
			out = append(out, *val)
		}
	}
	return out
}

// makefile classifies the commands a makefile's text runs: its recipes
// and its $(shell …) calls. Make's own references become run-time values
// ($(CC) is ${CC}), $$ a dollar.
func (a *analyzer) makefile(u *unit, f field) {
	for _, cmd := range makeCommands(f.val) {
		g := f
		g.val = cmd
		a.shellString(u, g)
	}
}

var (
	makeShellCall   = lazyRegexp(`\$[({]shell\s+([^()]*(?:\([^()]*\)[^()]*)*)[)}]`)
	makeShellAssign = lazyRegexp(`^\s*(?:export\s+|override\s+)*[^\s:=#!]+\s*!=\s*(.*)$`)
	makeVarRef      = lazyRegexp(`\$\$|\$[({]([A-Za-z_][A-Za-z0-9_]*|[@<^?*%+|])[)}]|\$([@<^?*%+|])`)
	// makeComputedRef is a reference whose name is made of references
	// makeVarRef has rewritten: $($*) is ${MAKE_AUTOMATIC}'s value's value.
	makeComputedRef = lazyRegexp(`\$[({](?:[A-Za-z0-9_.-]*\$\{[A-Za-z_][A-Za-z0-9_]*\})+[A-Za-z0-9_.-]*[)}]`)
)

// makeCommands returns the shell commands in a makefile's text: recipe
// lines (after a tab, or after ';' on a rule line) and $(shell …) bodies.
func makeCommands(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out []string
	for _, m := range makeShellCall().FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	for _, line := range strings.Split(text, "\n") {
		var recipe string
		switch {
		case strings.HasPrefix(line, "\t"):
			recipe = line
		case makeShellAssign().MatchString(line):
			// X != CMD assigns CMD's output: the shell runs it.
			recipe = makeShellAssign().FindStringSubmatch(line)[1]
		default:
			colon := strings.IndexByte(line, ':')
			if colon < 0 || strings.HasPrefix(line[colon:], ":=") || strings.HasPrefix(line[colon:], "::=") || strings.IndexByte(line[:colon], '=') >= 0 {
				continue
			}
			semi := strings.IndexByte(line[colon:], ';')
			if semi < 0 {
				continue
			}
			recipe = line[colon+semi+1:]
		}
		recipe = strings.TrimLeft(recipe, " \t@+-")
		if recipe == "" {
			continue
		}
		out = append(out, strings.ReplaceAll(makeRefs(recipe), "$$", "$"))
	}
	return out
}

// makeRefs turns make's references in a recipe into run-time values, the
// innermost first: $(CC) is ${CC}, $* ${MAKE_AUTOMATIC}, $($*) and
// $(X_$(Y)) ${MAKE_COMPUTED}; $$ (the shell's dollar) is left for the
// caller, so $$(cmd) stays a command substitution.
func makeRefs(recipe string) string {
	for range 8 {
		r := makeVarRef().ReplaceAllStringFunc(recipe, func(ref string) string {
			if ref == "$$" {
				return ref
			}
			name := strings.Trim(ref, "$(){}")
			if len(name) == 1 && !isIdent(name[0]) {
				return "${MAKE_AUTOMATIC}"
			}
			return "${" + name + "}"
		})
		r = makeComputedRef().ReplaceAllLiteralString(r, "${MAKE_COMPUTED}")
		if r == recipe {
			break
		}
		recipe = r
	}
	return recipe
}

// makeCommandVars are the variables make's built-in rules put in the
// commands they run ($(CC) $(CFLAGS) $(CPPFLAGS) -c …) and the shell
// make runs recipes with: a value given on the command line or in the
// environment becomes part of a shell command (make CC='rm -rf ~;' x.o),
// or the program that runs every recipe (SHELL). Found by red-team round
// 55.
var makeCommandVars = newSet("CC", "CXX", "CPP", "FC", "F77", "PC", "M2C", "LEX", "YACC", "LINT", "AS", "AR", "LD",
	"TEX", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "MAKEINFO", "TEXI2DVI", "GET", "CO", "RM", "SHELL",
	"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "LOADLIBES", "TARGET_ARCH", "TARGET_MACH", "ASFLAGS",
	"ARFLAGS", "FFLAGS", "LFLAGS", "YFLAGS", "PFLAGS", "RFLAGS", "COFLAGS", "GFLAGS", "LINTFLAGS", "OUTPUT_OPTION")

// makeCompositeVar matches the built-in rules' command variables made of
// others (COMPILE.c is $(CC) $(CFLAGS) … -c), which a definition replaces
// whole: found by red-team round 56.
var makeCompositeVar = lazyRegexp(`^(COMPILE|LINK|PREPROCESS|LINT)\.[A-Za-z0-9]+$`)

// makeVarDefs classifies what the variables the line defines for make run
// once make puts them in a recipe: each definition on its command line
// (NAME=VALUE, NAME:=…, NAME!=CMD, which the shell runs at once), and each
// of makeCommandVars set in its environment. A value is judged as make
// text, where it stands in a recipe as the command and as an argument
// ($(CC) … or cc $(CFLAGS) …). A value only known at run time, of a
// variable the built-in rules run, is run-time code.
func (a *analyzer) makeVarDefs(u *unit, args []field) {
	judge := func(name, op string, f field) {
		if f.dyn {
			if makeCommandVars.has(name) || makeCompositeVar().MatchString(name) {
				u.script = &stream{traits: trUnknown}
			}
			return
		}
		g := f
		g.val = name + " " + op + " " + f.val + "\n_:\n\t" + f.val + "\n\t: " + f.val + "\n"
		a.makefile(u, g)
	}
	for _, name := range makeCommandVars.words {
		if f, ok := a.envField(u, name); ok {
			judge(name, "=", f)
		}
	}
	for _, e := range u.env { // env 'LINK.c=…' make x: no shell variable has a dot
		if makeCompositeVar().MatchString(e.name) {
			judge(e.name, "=", e.val)
		}
	}
	// MAKEFILES names makefiles make reads before its own (round 56).
	if f, ok := a.envField(u, "MAKEFILES"); ok {
		if f.dyn {
			u.script = &stream{traits: trUnknown}
		}
		for _, w := range strings.Fields(f.val) {
			for _, t := range a.writtenTexts(u, nil, field{val: w}) {
				a.makefile(u, field{val: t})
			}
		}
	}
	opts := true
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(v, "-") {
			if k := strings.IndexAny(v[1:], makeValueShort) + 1; !strings.HasPrefix(v, "--") && k > 0 && k+1 == len(v) {
				i++ // -f FILE, -C DIR, -E TEXT (makeEvals)
			}
			continue
		}
		eq := strings.IndexByte(v, '=')
		if eq <= 0 {
			continue // a target
		}
		name, op := v[:eq], "="
		for _, suf := range []string{"::", ":", "+", "?", "!"} {
			if strings.HasSuffix(name, suf) {
				name, op = strings.TrimSuffix(name, suf), suf+"="
				break
			}
		}
		f := args[i]
		f.val = v[eq+1:]
		judge(strings.TrimSpace(name), op, f)
	}
}
