package agentbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
// takes a walk, bounded in size and cached for a while per root. It is not
// bounded in depth: the directory bound keeps its cost, and a depth bound
// would leave the user's deeper repositories writable unnoticed. A walk
// that the bound cuts short before a run refuses the run (scanBoundError);
// after one, it is reported.

const gitScanLifetime = 30 * time.Second

// gitScanMaxDirs bounds the walk: about half a second on a warm cache.
// (A variable for the tests.)
var gitScanMaxDirs = 50000

// gitScanSkip are directories that hold dependencies or build output, not
// the user's repositories; walking them would cost much and find nothing
// a person runs git in (only a .git right inside one is looked for).
var gitScanSkip = map[string]bool{
	"node_modules": true, ".git": true, ".cache": true, "vendor": true, "target": true,
	"dist": true, "build": true, "__pycache__": true, ".venv": true, "venv": true,
	".tox": true, ".mypy_cache": true, ".next": true, ".gradle": true,
	// Package managers' caches in a writable home: tens of thousands of
	// directories (npm's content index alone fans out 65,536 ways) that
	// would otherwise use up the walk's bound and refuse the home.
	// Language version managers' trees likewise (~/.pyenv alone holds 11,000
	// directories here); their own clone's .git is still found.
	".npm": true, ".pnpm-store": true, ".rustup": true, ".cargo": true, ".m2": true,
	".pyenv": true, ".nvm": true, ".rbenv": true, ".sdkman": true, ".gem": true,
}

// skipScan reports whether the walk passes over directory name in parent:
// one of gitScanSkip, or Go's module cache (GOPATH/pkg/mod).
func skipScan(parent, name string) bool {
	return gitScanSkip[name] || name == "mod" && filepath.Base(parent) == "pkg"
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
// A walk cut short by gitScanMaxDirs is an error (scanBoundError): the
// repositories past it could not be protected.
func (c *gitRepoCache) nested(root string, fresh bool) ([]string, error) {
	c.mu.Lock()
	s, ok := c.roots[root]
	c.mu.Unlock()
	if ok && !fresh && time.Since(s.at) < gitScanLifetime {
		return s.found, nil
	}
	found, _, truncated := scanGitRepos(root)
	if truncated {
		return nil, scanBoundError(root)
	}
	c.mu.Lock()
	if c.roots == nil {
		c.roots = make(map[string]gitScan)
	}
	c.roots[root] = gitScan{found: found, at: time.Now()}
	c.mu.Unlock()
	return found, nil
}

// scanBoundError refuses a writable root too large to scan: a command could
// change the hooks or config of any repository past the bound, and the
// host's git would run them. The skipped directories do not count.
func scanBoundError(root string) error {
	return configErr("Filesystem.WritableRoots", "%s holds more than %d directories (besides %s), too many to find and protect every git repository in it: "+
		"give the directories the command needs (each repository's work tree, say) as writable roots instead", root, gitScanMaxDirs, skippedNames())
}

// skippedNames lists gitScanSkip for a message.
func skippedNames() string {
	names := slices.Sorted(maps.Keys(gitScanSkip))
	return strings.Join(slices.DeleteFunc(names, func(n string) bool { return n == ".git" }), ", ")
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
	queue := []string{root}
	for visited := 0; len(queue) > 0; visited++ {
		if visited == gitScanMaxDirs {
			return found, unlisted, true
		}
		d := queue[0]
		queue = queue[1:]
		entries, err := listDir(d, access)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				unlisted = append(unlisted, err)
				// One that may be searched but not read: git on the host
				// still finds a .git in it. (Not one that became a link
				// since it was listed as a directory: that leads elsewhere.)
				if d != root && errors.Is(err, fs.ErrPermission) {
					found = append(found, probeGit(d)...)
				}
			}
			continue
		}
		gitDir := d != root && isGitDir(entries)
		if gitDir && !strings.HasSuffix(d, quarantineSuffix) {
			found = append(found, d)
		} // else one that a sweep disabled: renamed, its inside as it was
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			isGit := strings.EqualFold(e.Name(), ".git")
			if isGit && d != root && (e.IsDir() || e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0) {
				found = append(found, p)
				continue
			}
			switch {
			case !e.IsDir() || isGit:
			case gitDir && gitDirBulk[strings.ToLower(e.Name())]:
			case skipScan(d, e.Name()):
				// Not walked, but a repository made right there (build/.git)
				// is one a person may cd into.
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					found = append(found, filepath.Join(p, ".git"))
				}
			default:
				// Also one named like a disabled repository: only the git
				// directories agentbox renamed are passed over (above),
				// not a work tree a command gave such a name.
				queue = append(queue, p)
			}
		}
	}
	return found, unlisted, false
}

// gitDirBulk are the directories of a git directory that the walk does
// not enter: large, git's data only. The rest of one is walked like any
// directory: HEAD, objects and refs make a directory look like a git
// directory, and a command may put a repository beside them (tools/.git
// beside tools/HEAD), which git on the host in tools/ finds first.
var gitDirBulk = map[string]bool{"objects": true, "lfs": true, "annex": true}

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
	has := func(name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil
	}
	if has("HEAD") && (has("commondir") || has("objects") && has("refs")) &&
		!strings.HasSuffix(dir, quarantineSuffix) {
		return []string{dir}
	}
	return nil
}

// isGitDir reports whether a directory with these entries is a git
// directory by git's own test (setup.c's is_git_directory), erring
// towards one: a HEAD that is not a directory (a file, or a link into
// refs/ as git itself once wrote), and objects and refs of any type (git
// asks only that it may search them, which a link to a directory passes);
// or, beside a commondir, a HEAD alone, since git then looks for objects
// and refs in the directory commondir names. Names are compared without
// case, as in scanGitRepos.
func isGitDir(entries []os.DirEntry) bool {
	var head, objects, refs, common bool
	for _, e := range entries {
		switch name := e.Name(); {
		case strings.EqualFold(name, "HEAD"):
			head = head || !e.IsDir()
		case strings.EqualFold(name, "objects"):
			objects = true
		case strings.EqualFold(name, "refs"):
			refs = true
		case strings.EqualFold(name, "commondir"):
			common = true
		}
	}
	return head && (common || objects && refs)
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

// commondirHold is what a missing .git/commondir is held with while a
// command may write .git: a commondir names the directory git takes its
// config and hooks from, and "." names the repository's own, so git behaves
// exactly as without one, while a command cannot plant another.
var commondirHold = []byte(".\n")

// noRepositoryHold holds a missing .git outside every repository: a gitlink
// to a directory that does not exist.
var noRepositoryHold = []byte("gitdir: /nonexistent/agentbox-holds-this-name\n")
