package classify

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Programs read some files as code by their own convention: make its
// makefile, awk -f and sed -f their scripts, npm, yarn and pnpm the
// scripts of package.json, python -m and import a module in the working
// directory, node -r a module. Where the line wrote such a file, what it
// holds is judged as the code it is (echo 'x:; rm -rf ~' > Makefile;
// make).

// writtenCode judges the files u reads as code by convention that the line
// wrote.
func (a *analyzer) writtenCode(u *unit) {
	if len(a.files) == 0 {
		return
	}
	switch name := strings.TrimRight(u.name, "0123456789."); {
	case name == "make" || name == "gmake":
		dir := lastOptValue(u, "C", "--directory")
		files := optValues(u, "f", "--file", "--makefile")
		if len(files) == 0 {
			for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
				files = append(files, field{val: n})
			}
		}
		for _, f := range files {
			for _, t := range a.writtenTexts(u, dir, f) {
				a.makefile(u, field{val: t})
			}
		}
	case name == "tclsh" || name == "expect" || name == "wish":
		a.tclStartup(u) // tclcode.go: TCL_LIBRARY's init.tcl
	case strings.HasSuffix(name, "awk"):
		a.awkWrittenCode(u) // gawk.go: -f, -E, -i, @include, AWKPATH
	case name == "sed" || name == "gsed":
		for _, f := range optValues(u, "f", "--file") {
			for _, t := range a.writtenTexts(u, nil, f) {
				a.sedScript(u, field{val: t})
			}
		}
	case name == "npm" || name == "npx" || name == "pnpm" || name == "yarn" || name == "bun":
		dir := lastOptValue(u, "C", "--prefix", "--dir")
		if d := lastOptValue(u, "", "--cwd"); d != nil {
			dir = d
		}
		for _, t := range a.writtenTexts(u, dir, field{val: "package.json"}) {
			for _, s := range packageScripts(t) {
				a.shellString(u, field{val: s})
			}
		}
	case name == "composer":
		a.composerCode(u) // composer.json's scripts (composer.go)
	case name == "python" || name == "pypy":
		for _, m := range pythonModules(u) {
			p := strings.ReplaceAll(m, ".", "/")
			for _, f := range []string{p + ".py", p + "/__init__.py", p + "/__main__.py"} {
				for _, t := range a.writtenTexts(u, nil, field{val: f}) {
					a.codeText(u, "python", t)
				}
			}
		}
	case name == "node" || name == "nodejs":
		for _, f := range optValues(u, "r", "--require", "--import", "--loader", "--experimental-loader") {
			for _, ext := range []string{"", ".js", ".mjs", ".cjs"} {
				g := f
				g.val += ext
				for _, t := range a.writtenTexts(u, nil, g) {
					a.codeText(u, "node", t)
				}
			}
		}
	}
}

// writtenTexts returns the texts the line wrote to the file f (in dir,
// when given and f is relative), none when it wrote none.
func (a *analyzer) writtenTexts(u *unit, dir *field, f field) []string {
	if len(a.files) == 0 || f.dyn || dir != nil && dir.dyn {
		return nil // most lines write no file: no key to make
	}
	if dir != nil && !strings.HasPrefix(f.val, "/") {
		f.val = path.Join(dir.val, f.val)
	}
	text, ok := a.files[fileKey(u.cwd, u.links, f)]
	if !ok {
		return nil
	}
	var out []string
	for _, t := range fileTexts(text) {
		switch {
		case t == downloaded:
			u.script = &stream{traits: trDownload} // curl -o Makefile URL; make
			continue
		case strings.HasPrefix(t, "\x00"):
			continue // a text only known at run time, as the file's own
		}
		out = append(out, t)
	}
	return out
}

// packageScripts returns every script of a package.json text, or those
// named: npm runs some of them for nearly every command (install runs
// preinstall, install, postinstall and prepare), so all are judged. A
// text that is not JSON has none.
func packageScripts(text string, names ...string) []string {
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil {
		return nil
	}
	var out []string
	for k, v := range pkg.Scripts {
		if s, ok := v.(string); ok && (len(names) == 0 || slices.Contains(names, k)) {
			out = append(out, s)
		}
	}
	return out
}

// pythonModules returns the modules python runs or imports by name: -m
// MODULE, and the import and from statements of -c code.
func pythonModules(u *unit) []string {
	var out []string
	if m := optValues(u, "m"); len(m) > 0 && !m[0].dyn {
		out = append(out, m[0].val)
	}
	for _, c := range optValues(u, "c") {
		for _, stmt := range strings.FieldsFunc(c.val, func(r rune) bool { return r == ';' || r == '\n' }) {
			words := strings.Fields(strings.ReplaceAll(stmt, ",", " "))
			switch {
			case len(words) > 1 && words[0] == "import":
				for _, w := range words[1:] {
					if w == "as" {
						break
					}
					out = append(out, w)
				}
			case len(words) > 1 && words[0] == "from":
				out = append(out, words[1])
			}
		}
	}
	return out
}

// optValues returns the values of every -S VALUE (also -SVALUE) and, for
// each long name, --long VALUE and --long=VALUE, up to a "--".
func optValues(u *unit, short string, long ...string) []field {
	var out []field
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "--" {
			break
		}
		for _, l := range long {
			switch {
			case strings.HasPrefix(v, l+"="):
				g := u.args[i]
				g.val = v[len(l)+1:]
				out = append(out, g)
			case v == l && i+1 < len(u.args):
				i++
				out = append(out, u.args[i])
			}
		}
		if short != "" && len(v) >= 2 && v[0] == '-' && v[1:2] == short {
			if len(v) > 2 {
				g := u.args[i]
				g.val = v[2:]
				out = append(out, g)
			} else if i+1 < len(u.args) {
				i++
				out = append(out, u.args[i])
			}
		}
	}
	return out
}

// lastOptValue returns the last value optValues finds, nil for none.
func lastOptValue(u *unit, short string, long ...string) *field {
	vs := optValues(u, short, long...)
	if len(vs) == 0 {
		return nil
	}
	return &vs[len(vs)-1]
}
