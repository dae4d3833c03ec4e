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
