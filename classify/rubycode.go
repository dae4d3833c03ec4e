package classify

import (
	"path"
	"strings"
)

// Ruby's ways of running code from files and of writing files (found by
// red-team round 58): ruby -r FEATURE (searched in the -I directories and
// RUBYLIB, or a path), the load, require, require_relative and
// eval(File.read(…)) of a one-liner, rake's Rakefile and rakelib/*.rake,
// bundler's Gemfile (and the gemspecs it names), gem build's gemspec; the
// file utilities of un.rb (ruby -run -e rm -- -rf ~ is rm -rf ~); and
// ruby -i, which rewrites its file operands as perl -i does. The files the
// line wrote are judged as the Ruby they are.

// rubyOpt is a ruby option letter: whether it takes a value, and whether
// that value may be the next word (-r lib) or only the rest of its
// cluster (-i.bak, -0777).
type rubyOpt struct{ next bool }

// rubyOpts are ruby's option letters that take a value.
var rubyOpts = map[byte]rubyOpt{'e': {true}, 'r': {true}, 'I': {true}, 'C': {true}, 'E': {true},
	'i': {false}, 'F': {false}, '0': {false}, 'x': {false}, 'W': {false}, 'K': {false}, 'T': {false}}

// rubyArgs reads ruby's arguments as ruby does: the values of its
// options by letter (each -e code, each -r feature …), whether -i (in
// place) is given, and the words after the options: the script and its
// arguments, or with -e the code's ARGV.
func rubyArgs(args []field) (vals map[byte][]field, inPlace bool, rest []field) {
	vals = map[byte][]field{}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			return vals, inPlace, args[i+1:]
		}
		if len(v) < 2 || v[0] != '-' {
			return vals, inPlace, args[i:]
		}
		if strings.HasPrefix(v, "--") {
			continue // --disable=gems, --enable …: one word
		}
		for j := 1; j < len(v); j++ {
			o, ok := rubyOpts[v[j]]
			if !ok {
				continue
			}
			if v[j] == 'i' {
				inPlace = true
			}
			g := args[i]
			g.val = v[j+1:]
			if g.val == "" && o.next && i+1 < len(args) {
				i++
				g = args[i]
			}
			vals[v[j]] = append(vals[v[j]], g)
			break
		}
	}
	return vals, inPlace, nil
}

// rubyLoads matches the calls of Ruby code that load a file by name:
// group 1 the call, group 2 the name.
var rubyLoads = lazyRegexp(`\b(load|require_relative|require|import|eval_gemfile|autoload\s*\(?\s*:\w+\s*,|(?:eval|instance_eval|class_eval)\s*\(?\s*(?:File|IO)\.read)\s*\(?\s*["']([^"'#]+)["']`)

// rubyCall returns the name of the call rubyLoads matched, autoload
// being a require.
func rubyCall(m string) string {
	end := strings.IndexFunc(m, func(r rune) bool { return r != '_' && (r < 'a' || r > 'z') })
	if end < 0 {
		end = len(m)
	}
	if m[:end] == "autoload" {
		return "require"
	}
	return m[:end]
}

// rubyWrittenCode judges the Ruby files u (ruby, rake, bundle, gem)
// loads that the line wrote.
func (a *analyzer) rubyWrittenCode(u *unit) {
	switch u.name {
	case "rake":
		a.rakeFiles(u)
		return
	case "bundle", "bundler":
		a.gemfile(u)
		return
	case "gem":
		if u.arg(0) == "build" {
			a.gemspecs(u, u.operands()[1:])
		}
		return
	case "rspec":
		a.rspecFiles(u)
		return
	}
	n := strings.TrimRight(u.name, "0123456789.")
	if n != "ruby" && n != "irb" && n != "pry" {
		return
	}
	vals, _, rest := rubyArgs(u.args)
	if n == "pry" {
		a.rubyCodeOpts(u, vals['e']) // pry -e CODE (ruby's -e is scanned as an interpreter's)
	}
	dirs := vals['I']
	if lib, ok := a.envField(u, "RUBYLIB"); ok {
		for _, d := range strings.Split(lib.val, ":") {
			g := lib
			g.val = d
			dirs = append(dirs, g)
		}
	}
	seen := map[string]bool{}
	for _, r := range vals['r'] {
		a.rubyFeature(u, dirs, ".", r, "require", seen)
	}
	for _, code := range vals['e'] {
		a.rubyLoadsOf(u, dirs, ".", code, seen)
	}
	if len(vals['e']) == 0 && len(rest) > 0 {
		for _, t := range a.writtenTexts(u, nil, rest[0]) {
			a.rubyLoadsOf(u, dirs, path.Dir(rest[0].val), field{val: t}, seen) // ruby x.rb: what x.rb loads
		}
	}
}

// rubyLoadsOf judges the written files Ruby code (in dir) loads.
func (a *analyzer) rubyLoadsOf(u *unit, dirs []field, dir string, code field, seen map[string]bool) {
	for _, m := range rubyLoads().FindAllStringSubmatch(code.val, -1) {
		a.rubyFeature(u, dirs, dir, field{val: m[2], dyn: code.dyn}, rubyCall(m[1]), seen)
	}
}

// rubyText judges a written Ruby file's text (of dir) and the written
// files it loads.
func (a *analyzer) rubyText(u *unit, dirs []field, dir, text string, seen map[string]bool) {
	a.moreCode(u, "ruby", text)
	a.rubyLoadsOf(u, dirs, dir, field{val: text}, seen)
}

// rubyFeature judges the written file a require (or load,
// require_relative …) of name in code of dir reaches: a path, or a
// feature found in dirs; each file once.
func (a *analyzer) rubyFeature(u *unit, dirs []field, dir string, name field, call string, seen map[string]bool) {
	if name.dyn {
		return
	}
	var cands []string
	switch {
	case strings.HasPrefix(name.val, "/") || strings.HasPrefix(name.val, "~"):
		cands = []string{name.val}
	case strings.HasPrefix(name.val, "./") || strings.HasPrefix(name.val, "../") || call != "require":
		// require "./x" is of the working directory; load, import and
		// eval(File.read) too (load also searches the load path);
		// require_relative and eval_gemfile of the file's directory.
		cands = []string{name.val, path.Join(dir, name.val)}
	}
	if call == "require" || call == "load" {
		for _, d := range dirs {
			if !d.dyn {
				cands = append(cands, path.Join(d.val, name.val))
			}
		}
	}
	for _, c := range cands {
		for _, ext := range []string{"", ".rb"} {
			f := field{val: c + ext}
			key := fileKey(u.cwd, u.links, f)
			if seen[key] {
				continue
			}
			seen[key] = true
			for _, t := range a.writtenTexts(u, nil, f) {
				a.rubyText(u, dirs, path.Dir(f.val), t, seen)
			}
		}
	}
}

// rubyCodeOpts judges the Ruby code a tool's options give it (rake -e,
// pry -e); code only known at run time is dynamic.
func (a *analyzer) rubyCodeOpts(u *unit, codes []field) {
	for _, c := range codes {
		a.moreCode(u, "ruby", c.val)
		if c.dyn {
			u.code.dynamic = true
		}
	}
}

// rakeFiles judges what rake loads before it runs anything: its Rakefile
// (-f/--rakefile, else rakefile, Rakefile and their .rb forms, in -C's
// directory), every rakelib/*.rake (-R/--rakelibdir), and -r/--require
// files; and the code of -e/--execute, -p/--execute-print,
// -E/--execute-continue.
func (a *analyzer) rakeFiles(u *unit) {
	a.rubyCodeOpts(u, optValues(u, "e", "--execute"))
	a.rubyCodeOpts(u, optValues(u, "p", "--execute-print"))
	a.rubyCodeOpts(u, optValues(u, "E", "--execute-continue"))
	dir := lastOptValue(u, "C", "--directory")
	files := optValues(u, "f", "--rakefile")
	if len(files) == 0 {
		for _, n := range []string{"rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"} {
			files = append(files, field{val: n})
		}
	}
	files = append(files, optValues(u, "r", "--require")...)
	seen := map[string]bool{}
	for _, f := range files {
		for _, ext := range []string{"", ".rb"} {
			g := f
			g.val += ext
			for _, t := range a.writtenTexts(u, dir, g) {
				a.rubyText(u, nil, path.Dir(g.val), t, seen)
			}
		}
	}
	libs := optValues(u, "R", "--rakelibdir", "--rakelib")
	if len(libs) == 0 {
		libs = []field{{val: "rakelib"}}
	}
	for _, l := range libs {
		base := path.Base(cleanTarget(l.val))
		for _, key := range a.writtenFiles(func(k string) bool {
			return strings.HasSuffix(k, ".rake") && path.Base(path.Dir(k)) == base
		}) {
			for _, t := range a.keyTexts(u, key) {
				a.rubyText(u, nil, path.Dir(keyPath(u, key)), t, seen)
			}
		}
	}
}

// gemfile judges the Gemfile bundler evaluates for nearly every command
// (--gemfile, BUNDLE_GEMFILE, else Gemfile or gems.rb) and, where it says
// gemspec, the written gemspecs beside it.
func (a *analyzer) gemfile(u *unit) {
	files := optValues(u, "", "--gemfile")
	if f, ok := a.envField(u, "BUNDLE_GEMFILE"); ok {
		files = append(files, f)
	}
	if len(files) == 0 {
		files = []field{{val: "Gemfile"}, {val: "gems.rb"}}
	}
	seen := map[string]bool{}
	for _, f := range files {
		for _, t := range a.writtenTexts(u, nil, f) {
			a.rubyText(u, nil, path.Dir(f.val), t, seen)
			if strings.Contains(t, "gemspec") {
				a.gemspecs(u, nil)
			}
		}
	}
}

// gemspecs judges the gemspecs named, or, none named, every written
// *.gemspec.
func (a *analyzer) gemspecs(u *unit, named []field) {
	seen := map[string]bool{}
	for _, f := range named {
		for _, t := range a.writtenTexts(u, nil, f) {
			a.rubyText(u, nil, path.Dir(f.val), t, seen)
		}
	}
	if len(named) > 0 {
		return
	}
	for _, key := range a.writtenFiles(func(k string) bool { return strings.HasSuffix(k, ".gemspec") }) {
		for _, t := range a.keyTexts(u, key) {
			a.rubyText(u, nil, path.Dir(keyPath(u, key)), t, seen)
		}
	}
}

// rubyUnFuncs are the functions of un.rb (ruby -run -e NAME -- ARGS),
// each the command of the same name with the same options.
var rubyUnFuncs = newSet("cp", "ln", "mv", "rm", "mkdir", "rmdir", "install", "chmod", "touch")

// rubyRuns judges what u, a ruby command line, does besides its code: the
// un.rb function it calls as the command it is, and the files -i edits in
// place as writes (an rc file's new text as unknown, its code's strings
// as lines it may add, as perl -i's).
func (a *analyzer) rubyRuns(u *unit) {
	if strings.TrimRight(u.name, "0123456789.") != "ruby" || u.dynName {
		return
	}
	vals, inPlace, rest := rubyArgs(u.args)
	codes := vals['e']
	if slicesHasVal(vals['r'], "un") && len(codes) == 1 && rubyUnFuncs.has(strings.TrimSpace(codes[0].val)) {
		fn := codes[0]
		fn.val = strings.TrimSpace(fn.val)
		n := u.inner("ruby", append([]field{fn}, rest...))
		a.rememberOther(n, a.run(n)) // ruby -run -e cp x ~/.bashrc: the copied text
	}
	if !inPlace {
		return
	}
	files := rest
	if len(codes) == 0 && len(files) > 0 {
		files = files[1:] // the script
	}
	for _, f := range files {
		a.toolWrite(u, f, unknownText, false)
	}
	if runFileIn(u, files) {
		for _, c := range codes {
			for _, m := range perlString().FindAllStringSubmatch(c.val, -1) {
				a.judgeText(perlUnescape(m[1] + m[2]))
			}
		}
	}
}

// slicesHasVal reports whether a field of fs has the value v.
func slicesHasVal(fs []field, v string) bool {
	for _, f := range fs {
		if f.val == v && !f.dyn {
			return true
		}
	}
	return false
}

// rspecFiles judges what rspec loads: the spec files it is named (a
// FILE[:LINE], or a directory's *_spec.rb; spec/ by default; with
// --pattern every .rb file there), and the files -r/--require and the
// --require lines of .rspec, .rspec-local and ~/.rspec name (found in
// spec/, lib/ and the -I directories), where the line wrote them.
func (a *analyzer) rspecFiles(u *unit) {
	seen := map[string]bool{}
	suffix := "_spec.rb"
	if len(optValues(u, "P", "--pattern")) > 0 {
		suffix = ".rb"
	}
	var dirs []field
	for _, op := range operandsSkipping(u.args, "IreEtPfoO", "--require", "--example", "--example-matches", "--tag",
		"--pattern", "--exclude-pattern", "--format", "--out", "--options", "--seed", "--order", "--default-path") {
		name, _, _ := strings.Cut(op.val, ":")
		if strings.HasSuffix(name, ".rb") {
			for _, t := range a.writtenTexts(u, nil, field{val: name, dyn: op.dyn}) {
				a.rubyText(u, nil, path.Dir(name), t, seen)
			}
			continue
		}
		dirs = append(dirs, op)
	}
	if len(dirs) == 0 {
		dirs = []field{{val: "spec"}}
	}
	for _, d := range dirs {
		if d.dyn {
			continue
		}
		dk := fileKey(u.cwd, u.links, d)
		for _, key := range a.writtenFiles(func(k string) bool {
			return strings.HasSuffix(k, suffix) && (dk == "." || strings.HasPrefix(k, dk+"/"))
		}) {
			for _, t := range a.keyTexts(u, key) {
				a.rubyText(u, nil, path.Dir(keyPath(u, key)), t, seen)
			}
		}
	}
	reqs := optValues(u, "r", "--require")
	for _, rc := range []string{".rspec", ".rspec-local", "~/.rspec"} {
		for _, t := range a.writtenTexts(u, nil, field{val: rc}) {
			words := strings.Fields(t)
			for i, w := range words {
				if v, ok := strings.CutPrefix(w, "--require="); ok {
					reqs = append(reqs, field{val: v})
				} else if (w == "--require" || w == "-r") && i+1 < len(words) {
					reqs = append(reqs, field{val: words[i+1]})
				}
			}
		}
	}
	load := append([]field{{val: "spec"}, {val: "lib"}}, optValues(u, "I", "")...)
	for _, r := range reqs {
		a.rubyFeature(u, load, ".", r, "require", seen)
	}
}
