package agentbox

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// A .git may be a gitlink file ("gitdir: PATH": git init
// --separate-git-dir, an absorbed submodule, a linked work tree) naming a
// git directory kept elsewhere, where the hooks and config are. Keeping
// the file read-only is not enough when that directory lies inside a
// writable root too, in a place the scan skips (.cache) or does not reach.

// gitDirOf returns the git directory of the .git entry gitPath: itself
// for a directory, the one it names for a gitlink file, "" for neither.
func gitDirOf(gitPath string) string {
	fi, err := os.Stat(gitPath)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return gitPath
	}
	b, err := readFollow(gitPath)
	if err != nil {
		return ""
	}
	d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	return relativeTo(filepath.Dir(gitPath), strings.TrimSpace(d))
}

// commonDirOf returns the directory the commondir file of the git
// directory dir names (where a linked work tree's config and hooks are),
// "" without one.
func commonDirOf(dir string) string {
	b, err := readFollow(filepath.Join(dir, "commondir"))
	if err != nil {
		return ""
	}
	return relativeTo(dir, strings.TrimSpace(string(b)))
}

// relativeTo is p, taken relative to dir unless absolute.
func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// gitlinkProtection is what stays read-only of the git directory that the
// gitlink file gitPath names, and of its common directory, where they lie
// below a writable root (outside every one they are read-only anyway): the
// same as of a .git directory there (gitProtection, innerGitProtection).
// A directory without a HEAD is no git directory and is left alone.
func gitlinkProtection(gitPath string, roots []string, fsc FilesystemConfig, budget *int) (readOnly []string, holds map[string][]byte, truncated bool) {
	dir := gitDirOf(gitPath)
	if dir == "" || dir == gitPath {
		return nil, nil, false // a .git directory, or nothing git would use
	}
	holds = make(map[string][]byte)
	for _, d := range []string{dir, commonDirOf(dir)} {
		if d == "" {
			continue
		}
		d = resolvePath(d)
		if !paths.WithinAny(d, roots) || slices.Contains(roots, d) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
			continue
		}
		ro, h := gitProtection(d, fsc)
		inner, innerHolds, cut := innerGitProtection(d, fsc, budget)
		readOnly = append(append(readOnly, ro...), inner...)
		maps.Copy(holds, h)
		maps.Copy(holds, innerHolds)
		truncated = truncated || cut
	}
	return readOnly, holds, truncated
}
