package classify

import (
	"path"
	"path/filepath"
	"strings"
)

// A repository git finds through a gitfile (found by red-team round 60):
// a `.git` that is a file holding "gitdir: DIR" sends git to DIR, whose
// config it reads (and a "commondir" file there to the common directory
// of a worktree, whose config it reads too). `git init
// --separate-git-dir=DIR W` (and clone's) writes W/.git so. The gitfiles
// the line wrote, by hand or by git, are followed to the configuration
// the line wrote there.

// gitSeparateDirSubs are the subcommands taking --separate-git-dir, with
// their options that take a separate value (before the operands).
var gitSeparateDirSubs = map[string]set{
	"init": newSet("--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format", "--ref-format"),
	"clone": newSet("--template", "--separate-git-dir", "-b", "--branch", "-o", "--origin", "-u", "--upload-pack",
		"--reference", "--reference-if-able", "--depth", "--shallow-since", "--shallow-exclude", "-c", "--config",
		"-j", "--jobs", "--filter", "--server-option", "--bundle-uri", "--ref-format", "--recurse-submodules"),
}

// gitRepoDirs returns the git directories the path d (a repository's
// .git, or a --git-dir) stands for: d itself, the directory a gitfile the
// line wrote at d names, and the common directory a written commondir
// file names.
func (a *analyzer) gitRepoDirs(u *unit, d string) []string {
	dirs := []string{d}
	for _, t := range a.writtenTexts(u, nil, field{val: d}) {
		if g, ok := strings.CutPrefix(strings.TrimSpace(t), "gitdir:"); ok {
			dirs = append(dirs, gitRelPath(path.Dir(d), strings.TrimSpace(g)))
		}
	}
	for _, g := range dirs {
		for _, t := range a.writtenTexts(u, nil, field{val: path.Join(g, "commondir")}) {
			dirs = append(dirs, gitRelPath(g, strings.TrimSpace(t)))
		}
	}
	return dirs
}

// gitRelPath resolves p, as git does a gitfile's, against dir.
func gitRelPath(dir, p string) string {
	if path.IsAbs(p) {
		return p
	}
	return path.Join(dir, p)
}

// gitSeparateDir records the gitfile `git init --separate-git-dir=DIR W`
// writes at W/.git (base: the -C directory), its DIR relative to W.
func (a *analyzer) gitSeparateDir(u *unit, base string) {
	at := gitSubAt(u.args)
	if at < 0 {
		return
	}
	valued, ok := gitSeparateDirSubs[u.args[at].val]
	if !ok {
		return
	}
	var sep *field
	var ops []field
	args := u.args[at+1:]
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case strings.HasPrefix(v, "--separate-git-dir="):
			f := args[i]
			f.val = strings.TrimPrefix(v, "--separate-git-dir=")
			sep = &f
		case v == "--separate-git-dir" && i+1 < len(args):
			sep = &args[i+1]
			i++
		case valued.has(v):
			i++
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if sep == nil || sep.dyn {
		return
	}
	work := base
	if n := len(ops); u.args[at].val == "init" && n > 0 || n > 1 {
		if ops[n-1].dyn {
			return
		}
		work = gitRelPath(base, ops[n-1].val)
	}
	target := gitRelPath(base, sep.val)
	if !path.IsAbs(target) {
		if r, err := filepath.Rel(filepath.FromSlash(work), filepath.FromSlash(target)); err == nil {
			target = filepath.ToSlash(r)
		}
	}
	a.writeFile(fileKey(u.cwd, u.links, field{val: path.Join(work, ".git")}), "gitdir: "+target+"\n", false)
}

// gitFindDepth bounds how far up from its working directory git's search
// for a repository is followed.
const gitFindDepth = 8

// gitFindDirs returns where git, started in base with no git directory
// named, looks for its repository: base/.git, base itself (a bare
// repository), then the .git of each directory above (cd w/src && git
// status finds w/.git, a gitfile the line may have written).
func gitFindDirs(base string) []string {
	dirs := []string{path.Join(base, ".git"), base}
	for i, up := 0, base; i < gitFindDepth; i++ {
		up = path.Join(up, "..")
		dirs = append(dirs, path.Join(up, ".git"))
	}
	return dirs
}
