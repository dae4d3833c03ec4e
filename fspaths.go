package agentbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// resolvePath returns p with every symlink resolved. For a path that does not
// exist yet, the deepest existing ancestor is resolved and the rest appended,
// so that a deny rule follows the place a symlinked parent points to.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	var rest []string
	for q := p; ; q = filepath.Dir(q) {
		if q == "/" || q == "." {
			return p
		}
		if _, err := os.Lstat(q); err == nil {
			r, err := filepath.EvalSymlinks(q)
			if err != nil {
				return p
			}
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		} else if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		rest = append(rest, filepath.Base(q))
	}
}

// resolveAll resolves each path. When keepLinks is set, a path that is
// itself a symlink is kept beside its target, so that a deny applies to both
// names (a path whose parent is a symlink is only reachable through the
// target, which is enough).
func resolveAll(ps []string, keepLinks bool) []string {
	seen := make(map[string]bool)
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range ps {
		r := resolvePath(p)
		add(r)
		c := filepath.Clean(p)
		if keepLinks && r != c && resolvePath(filepath.Dir(c)) == filepath.Dir(c) {
			add(c)
		}
	}
	return out
}
