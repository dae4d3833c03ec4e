package agentbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A writable root may hold git repositories below its top (a workspace of
// several projects). Their hooks and config make the host's git run code as
// surely as the top one's, so they are protected the same way. Finding them
// takes a walk, bounded in depth and size and cached for a while per root.

const (
	gitScanDepth    = 5
	gitScanMaxDirs  = 5000
	gitScanLifetime = 30 * time.Second
)

// gitScanSkip are directories that hold dependencies or build output, not
// the user's repositories; walking them would cost much and find nothing
// a person runs git in (only a .git right inside one is looked for).
var gitScanSkip = map[string]bool{
	"node_modules": true, ".git": true, ".cache": true, "vendor": true, "target": true,
	"dist": true, "build": true, "__pycache__": true, ".venv": true, "venv": true,
	".tox": true, ".mypy_cache": true, ".next": true, ".gradle": true,
}

type gitScan struct {
	found []string
	at    time.Time
}

// gitRepoCache remembers the repositories found below each writable root.
type gitRepoCache struct {
	mu    sync.Mutex
	roots map[string]gitScan
}

// nested returns the .git entries (directories or gitlink files) below
// root, not root's own; fresh asks for a new walk rather than the cache.
func (c *gitRepoCache) nested(root string, fresh bool) []string {
	c.mu.Lock()
	s, ok := c.roots[root]
	c.mu.Unlock()
	if ok && !fresh && time.Since(s.at) < gitScanLifetime {
		return s.found
	}
	found, _, _ := scanGitRepos(root)
	c.mu.Lock()
	if c.roots == nil {
		c.roots = make(map[string]gitScan)
	}
	c.roots[root] = gitScan{found: found, at: time.Now()}
	c.mu.Unlock()
	return found
}

// scanGitRepos walks root breadth first for .git entries and bare
// repositories (git directories of their own: a bare repository used as a
// local remote runs its hooks at every push to it). Names are compared
// without case: in a case-insensitive directory (ext4's and f2fs's
// casefold, which a command may turn on for an empty directory it made)
// git's lookup of .git finds a .GIT, and Unicode case folding
// (strings.EqualFold) covers such spellings as "refſ".
// The caller owns the directories of its writable roots, so one that a
// command made unreadable is made readable for the walk (scanAccess) and
// given its mode back after it. unlisted are the directories that could
// still not be listed, each as the error that stopped it: what they hold
// was not examined, beyond a .git right inside (probeGit).
// truncated says that it stopped at gitScanMaxDirs with directories left.
func scanGitRepos(root string) (found []string, unlisted []error, truncated bool) {
	access := scanAccess{root: root}
	defer access.restore()
	return walkGitRepos(root, &access)
}

// walkGitRepos is scanGitRepos with the directories' modes given back by
// the caller (access.restore), who may first rename what it found.
func walkGitRepos(root string, access *scanAccess) (found []string, unlisted []error, truncated bool) {
	type dir struct {
		path  string
		depth int
	}
	queue := []dir{{root, 0}}
	for visited := 0; len(queue) > 0; visited++ {
		if visited == gitScanMaxDirs {
			return found, unlisted, true
		}
		d := queue[0]
		queue = queue[1:]
		entries, err := listDir(d.path, access)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				unlisted = append(unlisted, err)
				// One that may be searched but not read: git on the host
				// still finds a .git in it. (Not one that became a link
				// since it was listed as a directory: that leads elsewhere.)
				if d.path != root && errors.Is(err, fs.ErrPermission) {
					found = append(found, probeGit(d.path)...)
				}
			}
			continue
		}
		if d.path != root && isGitDir(entries) {
			found = append(found, d.path)
			continue
		}
		for _, e := range entries {
			p := filepath.Join(d.path, e.Name())
			isGit := strings.EqualFold(e.Name(), ".git")
			if isGit && d.path != root && (e.IsDir() || e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0) {
				found = append(found, p)
				continue
			}
			switch {
			case !e.IsDir() || isGit:
			case strings.HasSuffix(e.Name(), quarantineSuffix):
				// Disabled already (by this sweep or another sandbox's).
			case gitScanSkip[e.Name()]:
				// Not walked, but a repository made right there (build/.git)
				// is one a person may cd into.
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					found = append(found, filepath.Join(p, ".git"))
				}
			case d.depth < gitScanDepth:
				queue = append(queue, dir{p, d.depth + 1})
			}
		}
	}
	return found, unlisted, false
}

// listDir lists dir. Where that is refused, it lets the scan read and
// search dir, and its parents from the root on, if the command took
// that from their owner, the caller (see scanAccess), and lists it again.
// A directory that lists costs nothing more.
func listDir(dir string, access *scanAccess) ([]os.DirEntry, error) {
	entries, err := access.list(dir)
	if !errors.Is(err, fs.ErrPermission) {
		return entries, err
	}
	var granted error
	for _, d := range append([]string{access.root}, ancestorsBelow(access.root, dir)...) {
		if granted = access.grant(d); granted != nil {
			break
		}
	}
	if entries, err = access.list(dir); err != nil && granted != nil {
		return nil, fmt.Errorf("%w (%v)", err, granted)
	}
	return entries, err
}

// ancestorsBelow lists the directories from root (excluded) down to dir
// (included), outermost first.
func ancestorsBelow(root, dir string) []string {
	var out []string
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// probeGit looks, without listing dir, for what scanGitRepos would find
// in it: a .git right inside (in a directory that can be searched but not
// read, git on the host still finds it), or dir as a git directory itself.
func probeGit(dir string) []string {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return []string{filepath.Join(dir, ".git")}
	}
	n := 0
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			n++
		}
	}
	if n == 3 {
		return []string{dir}
	}
	return nil
}

// isGitDir reports whether a directory with these entries is a git
// directory, by git's own test: a HEAD file, an objects and a refs
// directory (names compared without case, as in scanGitRepos).
func isGitDir(entries []os.DirEntry) bool {
	n := 0
	for _, e := range entries {
		switch {
		case strings.EqualFold(e.Name(), "HEAD") && e.Type().IsRegular(),
			(strings.EqualFold(e.Name(), "objects") || strings.EqualFold(e.Name(), "refs")) && e.IsDir():
			n++
		}
	}
	return n == 3
}

// gitProtection is what stays read-only of one .git: the whole of it by
// default, or (when commands may write to git) its hooks and config, plus a
// held commondir (see commondirHold).
func gitProtection(gitPath string, fsc FilesystemConfig) (readOnly []string, holds map[string][]byte) {
	if !fsc.AllowGitWrites && !fsc.AllowGitConfig {
		return []string{gitPath}, nil
	}
	if fi, err := os.Stat(gitPath); err != nil || !fi.IsDir() {
		return []string{gitPath}, nil // a gitlink file: it names where the repository is
	}
	readOnly = []string{filepath.Join(gitPath, "hooks")}
	if !fsc.AllowGitConfig {
		readOnly = append(readOnly, filepath.Join(gitPath, "config"))
	}
	return readOnly, map[string][]byte{filepath.Join(gitPath, "commondir"): commondirHold}
}

// gitDirScanMax bounds the walk for the git directories a repository keeps
// inside its own (submodules, linked work trees, and theirs).
const gitDirScanMax = 1000

// innerGitProtection is what stays read-only of the git directories kept
// inside the one at gitPath, when commands may write to git: a
// submodule's (modules/NAME, nested as deep as submodules go) is protected
// like the top one (hooks, config, a held commondir); a linked work
// tree's (worktrees/NAME) keeps its commondir, which names where its
// config and hooks come from. config.worktree, read when the
// worktreeConfig extension is on, is kept (or held empty) everywhere.
func innerGitProtection(gitPath string, fsc FilesystemConfig) (readOnly []string, holds map[string][]byte) {
	if !fsc.AllowGitWrites && !fsc.AllowGitConfig {
		return nil, nil // the whole .git is read-only
	}
	if fi, err := os.Stat(gitPath); err != nil || !fi.IsDir() {
		return nil, nil // none, or a gitlink file (read-only whole)
	}
	holds = make(map[string][]byte)
	keep := func(p string, missing []byte) {
		if _, err := os.Lstat(p); err == nil {
			readOnly = append(readOnly, p)
		} else {
			holds[p] = missing
		}
	}
	if !fsc.AllowGitConfig {
		keep(filepath.Join(gitPath, "config.worktree"), nil)
	}
	queue := []string{gitPath}
	for n := 0; len(queue) > 0 && n < gitDirScanMax; n++ {
		dir := queue[0]
		queue = queue[1:]
		for _, kind := range []string{"modules", "worktrees"} {
			entries, err := os.ReadDir(filepath.Join(dir, kind))
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				d := filepath.Join(dir, kind, e.Name())
				if kind == "worktrees" {
					keep(filepath.Join(d, "commondir"), commondirHold)
				} else {
					readOnly = append(readOnly, filepath.Join(d, "hooks"))
					if !fsc.AllowGitConfig {
						keep(filepath.Join(d, "config"), nil)
					}
					holds[filepath.Join(d, "commondir")] = commondirHold
				}
				if !fsc.AllowGitConfig {
					keep(filepath.Join(d, "config.worktree"), nil)
				}
				queue = append(queue, d) // a submodule's submodules and work trees
			}
		}
	}
	return readOnly, holds
}

// commondirHold is what a missing .git/commondir is held with while a
// command may write .git: a commondir names the directory git takes its
// config and hooks from, and "." names the repository's own, so git behaves
// exactly as without one, while a command cannot plant another.
var commondirHold = []byte(".\n")

// noRepositoryHold holds a missing .git outside every repository: a gitlink
// to a directory that does not exist.
var noRepositoryHold = []byte("gitdir: /nonexistent/agentbox-holds-this-name\n")

// A command may also create a repository anywhere it may write, and a
// repository's config can make the host's git run commands (core.fsmonitor,
// hooks, aliases, filters …) as soon as a person or a shell prompt runs git
// there. No mount can forbid a new name in a writable directory, so after
// each command agentbox looks for repositories that were not there before,
// and disables (renames) those whose config sets anything beyond plain
// bookkeeping, whose hooks are more than git's samples, or that are gitlink
// files pointing elsewhere. The walk has the same bounds as the scan.

// safeGitKeys are the config keys a freshly initialised or cloned
// repository has; anything else in a new repository's config is suspect.
var safeGitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "init.defaultbranch": true,
	"user.name": true, "user.email": true, "extensions.objectformat": true,
}

// safeGitSubsectionKeys are allowed in any subsection (remote "origin").
var safeGitSubsectionKeys = map[string]bool{
	"remote.url": true, "remote.fetch": true, "remote.pushurl": true,
	"branch.remote": true, "branch.merge": true, "branch.rebase": true,
}

// quarantineSuffix is appended to a disabled repository's .git.
const quarantineSuffix = ".agentbox-quarantine"

// sweepNewRepos disables repositories below the writable roots that were
// not there before the command, if they could run code on the host, and
// reports each as a violation.
func sweepNewRepos(before map[string][]string, roots []string) []Violation {
	var out []Violation
	for _, w := range roots {
		old := make(map[string]bool)
		for _, g := range before[w] {
			old[g] = true
		}
		access := scanAccess{root: w}
		candidates, unlisted, truncated := walkGitRepos(w, &access)
		if truncated {
			// Many directories are no reason to trust what lies beyond
			// them: say that the check stopped.
			out = append(out, Violation{Kind: "filesystem", Rule: "planted-repository",
				Detail: fmt.Sprintf("%s holds more than %d directories: repositories the command made beyond them were not checked", w, gitScanMaxDirs)})
		}
		for _, err := range unlisted {
			// Nor is a directory agentbox could not read.
			out = append(out, Violation{Kind: "filesystem", Rule: "planted-repository",
				Detail: fmt.Sprintf("a directory of %s could not be examined (%v): repositories the command made in or below it were not checked", w, err)})
		}
		for _, g := range append(candidates, filepath.Join(w, ".git")) {
			if old[repoKey(g)] {
				continue
			}
			reason := riskyRepo(g)
			if reason == "" {
				continue
			}
			v := Violation{Kind: "filesystem", Rule: "planted-repository",
				Detail: fmt.Sprintf("%s was created by the command and %s", g, reason)}
			if err := quarantine(w, g); err != nil {
				v.Detail += "; agentbox could not disable it: " + err.Error()
			} else {
				v.Detail += "; agentbox renamed it to " + filepath.Base(g) + quarantineSuffix
			}
			out = append(out, v)
		}
		access.restore() // after the renames, which may need the search permission given
	}
	return out
}

// repoKey names a repository found by the scan for the comparison of
// before and after a command: its path and its file (device and inode),
// so that one put in the place of another (a sandbox on the same root
// moving the first away) is new; and for a .git that is a symbolic link
// (which cannot be kept read-only) also the link's target, so that a
// command repointing one is caught like one planting it.
func repoKey(gitPath string) string {
	key := gitPath
	if id, ok := idOf(gitPath); ok {
		key += fmt.Sprintf(" @%d:%d:%d", id.dev, id.ino, id.born)
	}
	if target, err := os.Readlink(gitPath); err == nil {
		key += " -> " + target
	}
	return key
}

// riskyRepo says why the repository at gitPath could run code on the host,
// or "" when it holds only what git itself writes.
func riskyRepo(gitPath string) string {
	fi, err := os.Lstat(gitPath)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "is a symbolic link to a git directory elsewhere"
	}
	if !fi.IsDir() {
		if fi.Mode().IsRegular() && fi.Size() == int64(len(noRepositoryHold)) {
			if b, err := os.ReadFile(gitPath); err == nil && bytes.Equal(b, noRepositoryHold) {
				return "" // agentbox's own hold, naming no repository
			}
		}
		return "is a gitlink naming another directory's repository"
	}
	// agentbox looks unconfined and reports what it finds to the caller:
	// it must not follow a link the command planted to a denied file or
	// directory, or the report would carry what lies behind it.
	for _, f := range []string{"hooks", "config"} {
		if fi, err := os.Lstat(filepath.Join(gitPath, f)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "has a " + f + " that is a symbolic link"
		}
	}
	hooks, err := os.ReadDir(filepath.Join(gitPath, "hooks"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "has hooks that agentbox could not list (" + err.Error() + ")"
	}
	for _, h := range hooks {
		if !strings.HasSuffix(h.Name(), ".sample") {
			return "has a hook (" + h.Name() + ")"
		}
	}
	for _, f := range []string{"commondir", "config.worktree"} {
		if _, err := os.Lstat(filepath.Join(gitPath, f)); err == nil {
			return "has a " + f
		}
	}
	b, err := readNoFollow(filepath.Join(gitPath, "config"))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return "has a config that agentbox could not read (" + err.Error() + ")"
	}
	if key := unsafeGitKey(string(b)); key != "" {
		return "sets " + key + " in its config"
	}
	return ""
}

// unsafeGitKey returns the first key of a git config text that is not plain
// bookkeeping. It reads the format loosely, on purpose: anything it does not
// understand counts as unsafe.
func unsafeGitKey(config string) string {
	for e := range gitConfigEntries(config) {
		switch {
		case e.bad != "":
			return e.bad
		case e.sub && !safeGitSubsectionKeys[e.section+"."+e.key]:
			return e.section + "." + e.key
		case !e.sub && !safeGitKeys[e.section+"."+e.key]:
			return e.section + "." + e.key
		}
	}
	return ""
}

// gitConfigEntry is one "key = value" line of a git config text.
type gitConfigEntry struct {
	section string // lower case, without its subsection
	sub     bool   // in a subsection ([remote "origin"], [core.x])
	key     string // lower case
	value   string // raw: quoted, maybe with a trailing comment
	bad     string // a line that is not understood (and nothing else)
}

// gitConfigEntries reads a git config text line by line.
func gitConfigEntries(config string) iter.Seq[gitConfigEntry] {
	return func(yield func(gitConfigEntry) bool) {
		section, sub := "", false
		for _, line := range strings.Split(config, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
			if line[0] == '[' {
				end := strings.IndexByte(line, ']')
				if end < 0 {
					if !yield(gitConfigEntry{bad: line}) {
						return
					}
					section, sub = "", false
					continue
				}
				head := strings.TrimSpace(line[1:end])
				name, _, hasSub := strings.Cut(head, " ")
				if n, _, dotted := strings.Cut(name, "."); dotted {
					name, hasSub = n, true
				}
				section, sub = strings.ToLower(name), hasSub
				if line = strings.TrimSpace(line[end+1:]); line == "" {
					continue // "[core] key = value" on one line goes on
				}
			}
			key, value, _ := strings.Cut(line, "=")
			e := gitConfigEntry{section: section, sub: sub, key: strings.ToLower(strings.TrimSpace(key)), value: strings.TrimSpace(value)}
			if !yield(e) {
				return
			}
		}
	}
}
