package classify

import "strings"

// keyTexts returns the texts the line wrote to the file of analyzer.files
// key (a path already resolved, as writtenFiles returns it: not against
// u's working directory again), as writtenTexts does for a path.
func (a *analyzer) keyTexts(u *unit, key string) []string {
	v := &unit{kind: kCall, script: u.script}
	out := a.writtenTexts(v, nil, field{val: key})
	u.script = v.script
	return out
}

// keyUnder returns key's path below the directory key dir ("" or "." for
// the line's working directory), and whether it is below it.
func keyUnder(key, dir string) (string, bool) {
	if dir == "" || dir == "." {
		return key, !strings.HasPrefix(key, "/") && !strings.HasPrefix(key, "~") && !strings.HasPrefix(key, "../")
	}
	return strings.CutPrefix(key, strings.TrimSuffix(dir, "/")+"/")
}

// keyPath returns a path that names, from u's working directory, the file
// of analyzer.files key: the key itself where u has not left the line's
// directory (or the key is absolute), else the key reached back through
// "../" from a relative directory u went into. Code that joins a file's
// directory to the names it loads (require_relative, an inventory script)
// takes this path, not the key, so that writtenTexts finds those files.
func keyPath(u *unit, key string) string {
	if fileKey(u.cwd, u.links, field{val: key}) == key {
		return key
	}
	if p := strings.Repeat("../", strings.Count(u.cwd, "/")+1) + key; fileKey(u.cwd, u.links, field{val: p}) == key {
		return p
	}
	return key
}
