package agentbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentbox-dev/agentbox/internal/credpaths"
	"github.com/agentbox-dev/agentbox/internal/dirlist"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// resolvePath returns p with every symlink resolved. For a path that does not
// exist yet, the deepest existing ancestor is resolved and the rest appended,
// so that a deny rule follows the place a symlinked parent points to.
func resolvePath(p string) string { return new(resolver).resolve(p) }

// resolver resolves symbolic links in paths, remembering each directory it
// has resolved: the many deny paths under one home directory then cost
// about one lstat each, where filepath.EvalSymlinks would walk every one
// from the root (and twice for a path that does not exist).
type resolver struct {
	memo    map[string]string // cleaned absolute path → resolved
	missing map[string]bool   // resolved paths that do not exist
	dirs    dirlist.Cache     // listings of directories asked about often
}

// lstat is os.Lstat of dir/name, answered from dir's listing when the
// resolver has one (dirlist): the deny set holds dozens of names in the
// home directory and ~/.config, most of them missing. Only the type of
// the FileInfo is meaningful.
func (r *resolver) lstat(dir, name string) (fs.FileMode, error) {
	if mode, exists, listed := r.dirs.Type(dir, name); listed {
		if !exists {
			return 0, fs.ErrNotExist
		}
		return mode, nil
	}
	fi, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// maxLinks bounds the links followed for one path, like the kernel's 40.
const maxLinks = 40

func (r *resolver) resolve(p string) string {
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		p = wd + "/" + p // not cleaned: see within
	}
	links := 0
	if out, ok := r.within("/", p, &links); ok {
		return out
	}
	return filepath.Clean(p) // a loop of links: leave it as it is named
}

// within resolves the path p (absolute, or relative to dir, which has no
// links left) as the kernel does: component by component, so that a ".."
// applies to the directory a link before it leads to, not to the link's
// own directory (LINK/../secret is the secret beside LINK's target), which
// cleaning the path first would get wrong. It reports false when more than
// maxLinks links were followed.
func (r *resolver) within(dir, p string, links *int) (string, bool) {
	if filepath.IsAbs(p) {
		dir = "/"
	}
	if !hasDotDot(p) {
		// The common case, memoised whole. Clean allocates nothing for a
		// path that is clean already, as the deny paths are.
		if filepath.IsAbs(p) {
			return r.walk(filepath.Clean(p), links)
		}
		return r.walk(filepath.Join(dir, p), links)
	}
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			dir = filepath.Dir(dir)
			continue
		}
		out, ok := r.walk(filepath.Join(dir, c), links)
		if !ok {
			return "", false
		}
		dir = out
	}
	return dir, true
}

// hasDotDot reports whether p has a ".." component. Every deny path of
// every command is asked: the common answer costs no allocation.
func hasDotDot(p string) bool {
	return strings.Contains(p, "..") && slices.Contains(strings.Split(p, "/"), "..")
}

// walk resolves the cleaned absolute path p. It reports false when more
// than maxLinks links were followed.
func (r *resolver) walk(p string, links *int) (string, bool) {
	if p == "/" {
		return p, true
	}
	if out, ok := r.memo[p]; ok {
		return out, true
	}
	parent := filepath.Dir(p)
	dir, ok := r.walk(parent, links)
	if !ok {
		return "", false
	}
	out := p // no link on the way: the common case, without a new string
	if dir != parent {
		out = filepath.Join(dir, filepath.Base(p))
	}
	var mode fs.FileMode
	var err error
	if r.missing[dir] {
		err = fs.ErrNotExist // nothing below a missing directory
	} else {
		mode, err = r.lstat(dir, filepath.Base(p))
	}
	if errors.Is(err, fs.ErrNotExist) {
		if r.missing == nil {
			r.missing = make(map[string]bool)
		}
		r.missing[out] = true
	}
	if err == nil && mode&fs.ModeSymlink != 0 {
		target, err := os.Readlink(out)
		if err != nil {
			return out, true
		}
		if *links++; *links > maxLinks {
			return "", false
		}
		if out, ok = r.within(dir, target, links); !ok {
			return "", false
		}
	}
	// Missing, unreadable or resolved: remember it.
	if r.memo == nil {
		r.memo = make(map[string]string)
	}
	r.memo[p] = out
	return out, true
}

// resolveAll resolves each path. When keepLinks is set, a path that is
// itself a symlink is kept beside its target, named with its directories
// resolved, so that a deny applies to both names and the plan can hold the
// link (a path whose parent is a symlink is only reachable through the
// target; see throughLinks for the links on the way). A link into /dev,
// /proc or /sys from elsewhere (~/.bash_history -> /dev/null, a history
// turned off) keeps only its own name: the deny would hide /dev/null from
// every sandbox, and what the link names has no contents of the user's
// (red-team round 50).
func resolveAll(ps []string, keepLinks bool) []string { return new(resolver).all(ps, keepLinks) }

// all is resolveAll with r's memo, shared by every list of one call.
func (r *resolver) all(ps []string, keepLinks bool) []string {
	if r.memo == nil {
		// Room for the paths and their parents: the default deny list
		// alone names over 200, asked by every call. (Not for a resolver
		// of one path: resolvePath.)
		r.memo, r.missing = make(map[string]string, 2*len(ps)), make(map[string]bool, 2*len(ps))
	}
	seen := make(map[string]bool)
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range ps {
		rp := r.resolve(p)
		c := filepath.Clean(p)
		if _, kernel := sandbox.KernelFilesystem(rp); !kernel || !keepLinks {
			add(rp)
		} else if _, named := sandbox.KernelFilesystem(c); named {
			add(rp) // denied by its own name (/sys, /proc/kcore)
		}
		if !keepLinks || rp == c || hasDotDot(p) {
			continue
		}
		named := c
		if dir := filepath.Dir(c); r.resolve(dir) != dir {
			named = filepath.Join(r.resolve(dir), filepath.Base(c))
		}
		if named != rp {
			add(named)
		}
	}
	return out
}

// throughLinks returns, for each path of ps reached through a linked
// directory inside one of roots (W/link/secret, with W/link ->
// dotfiles/x), that path named from the first such link (its own
// directories resolved). The target is denied as resolved; this name lets
// the plan hold the links on the way, or the command could replace W/link
// with a directory of its own and put its own "secret" there for the
// host's tools to read.
func (r *resolver) throughLinks(ps, roots []string) []string {
	var out []string
	if len(roots) == 0 {
		return nil // no link inside a root to go through
	}
	for _, p := range ps {
		if !filepath.IsAbs(p) || hasDotDot(p) {
			continue
		}
		names := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
		dir := "/"
		for i, name := range names[:len(names)-1] {
			q := filepath.Join(dir, name)
			rq := r.resolve(q)
			if rq != q && paths.WithinAny(q, roots) {
				out = append(out, filepath.Join(append([]string{q}, names[i+1:]...)...))
				break
			}
			dir = rq
		}
	}
	return out
}

// selfExecutable is this process's executable, resolved; "" if unknown.
var selfExecutable = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	return resolvePath(p)
})

// systemDirs are directories whose writing changes how the machine runs:
// a writable root may be one only when named as such, not through a link.
var systemDirs = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/root", "/opt"}

// linkedIntoSensitive says why the writable root p, which resolves to r,
// must be named by its real path: "" when p is no link, when r is
// harmless, or when p itself names such a place (the caller means it). A
// command that may write in one place can leave a link there for a later
// writable root to follow: to /etc, to the home directory itself, or into
// its start-up files, settings or credential stores.
func linkedIntoSensitive(p, r string) string {
	c := filepath.Clean(p)
	if r == c {
		return ""
	}
	var homes []string
	for _, h := range paths.Homes() {
		homes = append(homes, h, resolvePath(h))
	}
	if what := sensitivePlace(r, homes); what != "" && sensitivePlace(c, homes) == "" {
		return what
	}
	return ""
}

// sensitivePlace says what p is when writing there changes how the machine
// or the user's sessions run, or reaches their credentials; "" otherwise.
func sensitivePlace(p string, homes []string) string {
	if p == "/" || paths.WithinAny(p, systemDirs) {
		return "a system directory"
	}
	for _, home := range homes {
		if paths.Within(home, p) {
			return "the home directory or one holding it"
		}
		for _, group := range [][]string{ShellStartupFiles, ProtectedPaths, credpaths.Home} {
			for _, rel := range group {
				if paths.Within(p, filepath.Join(home, filepath.FromSlash(rel))) {
					return "in the home's start-up files, settings or credentials (~/" + rel + ")"
				}
			}
		}
	}
	return ""
}

// plantableLink returns the first symbolic link on the way to p that a
// command could have planted (see plantArea); "" if there is none.
func plantableLink(p string, area *plantArea) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	var res resolver
	dir := "/"
	for _, name := range strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/") {
		if name == "" {
			continue
		}
		q := filepath.Join(dir, name)
		if fi, err := os.Lstat(q); err != nil {
			return ""
		} else if fi.Mode()&fs.ModeSymlink != 0 && area.holds(q) {
			return q
		}
		dir = res.resolve(q)
	}
	return ""
}

// checkThroughLinks refuses read allow-list entries, writable roots and
// working directories that reach their target through a link a command
// could have planted: inside a writable root of this call or of any
// earlier sandbox (see grantedRoots), or where another user could have
// made it. The next call would read or write wherever it points.
func checkThroughLinks(field string, ps []string, area *plantArea) error {
	for i, p := range ps {
		if l := plantableLink(p, area); l != "" {
			name := field
			if strings.HasPrefix(field, "Filesystem.") {
				name = fmt.Sprintf("%s[%d]", field, i)
			}
			return configErr(name,
				"%s goes through the symbolic link %s, which a command or another user could have planted (where a sandbox may write or was given to write, or others may change it); name its target (%s) itself if it is meant", p, l, resolvePath(p))
		}
	}
	return nil
}
