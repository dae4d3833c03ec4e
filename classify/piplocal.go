package classify

import (
	"path"
	"slices"
	"strings"
)

// pip builds a local project, running its setup.py or importing its
// in-tree build backend (pyproject.toml's backend-path), for install,
// wheel and download alike, however the project is named: a directory
// (".", "./x", "../x", "/x"), with extras (".[dev]"), a file:// URL, the
// value of -e/--editable, or a line of a requirements file (-r) the line
// wrote (found by red-team rounds 52 and 61). The written setup.py and
// backend of each such project are judged as the code pip runs.

// pipBuildSubs are the pip commands that build the projects they name.
var pipBuildSubs = newSet("install", "wheel", "download")

// pipBuildCode judges the written projects pip (u) builds.
func (a *analyzer) pipBuildCode(u *unit) {
	ops := u.operands()
	i := slices.IndexFunc(ops, func(f field) bool { return pipBuildSubs.has(f.val) })
	if i < 0 {
		return // (the value of a global option may come before the command)
	}
	specs := append(ops[i+1:], optValues(u, "e", "--editable")...)
	for _, r := range optValues(u, "r", "--requirement") {
		specs = append(specs, a.pipReqSpecs(u, r, 0)...)
	}
	seen := map[string]bool{}
	for _, s := range specs {
		for _, dir := range a.pipProjectDirs(u, s) {
			if seen[dir] {
				continue
			}
			seen[dir] = true
			a.pyProjectCode(u, dir)
		}
	}
}

// pyProjectCode judges the written setup.py and in-tree build backend of
// the project in dir, which a Python build frontend u builds.
func (a *analyzer) pyProjectCode(u *unit, dir string) {
	for _, t := range a.writtenTexts(u, nil, field{val: path.Join(dir, "setup.py")}) {
		a.moreCode(u, "python", t)
	}
	a.pyBuildBackend(u, dir)
}

// pipProjectDirs returns the directories (paths from u's directory) of
// the projects the requirement specifier s may name: its path, less any
// extras or file:// scheme; every project the line wrote when s is only
// known at run time (pip install file://$PWD).
func (a *analyzer) pipProjectDirs(u *unit, s field) []string {
	if s.dyn {
		var dirs []string
		for _, key := range a.writtenFiles(func(k string) bool {
			return path.Base(k) == "setup.py" || path.Base(k) == "pyproject.toml"
		}) {
			dirs = append(dirs, keyPath(u, path.Dir(key)))
		}
		return dirs
	}
	v := strings.TrimSpace(s.val)
	if _, url, ok := strings.Cut(v, "@"); ok && strings.Contains(url, "file:") {
		v = strings.TrimSpace(url) // name @ file:///path
	}
	v = strings.TrimPrefix(strings.TrimPrefix(v, "file://"), "file:")
	if i := strings.IndexByte(v, '['); i >= 0 {
		v = v[:i] // .[dev]
	}
	if v == "" || !strings.HasPrefix(v, ".") && !strings.Contains(v, "/") {
		return nil // a package name, fetched from the index
	}
	return []string{v}
}

// pipReqSpecs returns the requirement specifiers of the requirements file
// f, where the line wrote it: each line's, -e values, and those of the
// files it includes with -r (relative to it).
func (a *analyzer) pipReqSpecs(u *unit, f field, depth int) []field {
	if depth > 3 {
		return nil
	}
	var out []field
	for _, t := range a.writtenTexts(u, nil, f) {
		for l := range strings.Lines(t) {
			l, _, _ = strings.Cut(l, " #")
			words := strings.Fields(l)
			if len(words) == 0 || strings.HasPrefix(words[0], "#") {
				continue
			}
			opt, val, _ := strings.Cut(words[0], "=")
			if len(words) > 1 && val == "" {
				val = words[1]
			}
			switch opt {
			case "-r", "--requirement":
				out = append(out, a.pipReqSpecs(u, field{val: path.Join(path.Dir(f.val), val)}, depth+1)...)
			case "-e", "--editable":
				out = append(out, field{val: val})
			default:
				if !strings.HasPrefix(opt, "-") {
					out = append(out, field{val: strings.TrimSpace(l)})
				}
			}
		}
	}
	return out
}
