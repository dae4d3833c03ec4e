package agentbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Git runs hooks from core.hooksPath when it is set, not from .git/hooks:
// husky points it at .husky/_, and projects that version their hooks at a
// directory such as .githooks. Inside a writable root such a directory is
// as dangerous as .git/hooks, so it is kept read-only too (held by an empty
// placeholder while it does not exist).

// hooksDirs resolves values of core.hooksPath to the hook directories git
// would use, as git does: "~/" is home, a relative path is relative to the
// work tree. With worktree "" (the global values, for every repository
// alike) relative values are left out: they name a directory per
// repository.
func hooksDirs(values []string, worktree, home string) []string {
	var out []string
	for _, v := range values {
		if p, ok := resolveHooksPath(v, worktree, home); ok {
			out = append(out, p)
		}
	}
	return out
}

// relativeHooksPaths returns the values of core.hooksPath that name a
// directory per repository: relative to its work tree (to the repository
// itself where it is bare).
func relativeHooksPaths(values []string) []string {
	var out []string
	for _, v := range values {
		if v != "" && !strings.HasPrefix(v, "~") && !filepath.IsAbs(v) {
			out = append(out, v)
		}
	}
	return out
}

// plantedHooks says what hooks the repository whose .git entry (or bare
// git directory) is gitPath holds in its own files where a relative
// core.hooksPath of the user's global configuration (rel) points git:
// a repository a command made with its hooks there runs them on the
// host at the user's next commit (red-team round 58). "" where none.
func plantedHooks(gitPath string, rel []string) string {
	base := filepath.Dir(gitPath)
	if filepath.Base(gitPath) != ".git" {
		base = gitPath
	}
	for _, v := range rel {
		where := fmt.Sprintf("%s, where your global core.hooksPath (%s) points git", filepath.Join(base, v), v)
		fi, err := os.Lstat(filepath.Join(base, v))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return "has hooks that agentbox could not examine in " + where + " (" + err.Error() + ")"
		case !fi.IsDir():
			return "has something other than a directory in " + where
		}
		hooks, err := os.ReadDir(filepath.Join(base, v))
		if err != nil {
			return "has hooks that agentbox could not list in " + where + " (" + err.Error() + ")"
		}
		for _, h := range hooks {
			if !strings.HasSuffix(h.Name(), ".sample") {
				return "has a hook (" + h.Name() + ") in " + where
			}
		}
	}
	return ""
}

// resolveHooksPath resolves a value of core.hooksPath as git does: "~/" is
// home, a relative path is relative to the work tree (when worktree is ""
// a relative value is skipped: it names a directory per repository).
func resolveHooksPath(v, worktree, home string) (string, bool) {
	switch {
	case v == "":
		return "", false
	case v == "~" || strings.HasPrefix(v, "~/"):
		if home == "" {
			return "", false
		}
		v = filepath.Join(home, v[1:])
	case strings.HasPrefix(v, "~"):
		return "", false // ~user: another user's home, outside any writable root of ours
	case !filepath.IsAbs(v):
		if worktree == "" {
			return "", false
		}
		v = filepath.Join(worktree, v)
	}
	return resolvePath(v), true
}

// repoConfigFiles returns the configuration files of the repository whose
// .git entry is gitPath: a directory, or a gitlink file naming the git
// directory (a linked work tree or a submodule), whose commondir holds the
// shared configuration.
func repoConfigFiles(gitPath string) []string {
	dir := gitDirOf(gitPath)
	if dir == "" {
		return nil
	}
	files := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree")}
	if common := commonDirOf(dir); common != "" {
		files = append(files, filepath.Join(common, "config"))
	}
	return files
}

// globalConfigFiles returns the system's and the user's git configuration
// files, found the way git finds them.
func globalConfigFiles(home string) []string {
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return files
}

// maxIncludeDepth bounds how deep gitConfigClosure follows includes, as
// git itself does.
const maxIncludeDepth = 10

// gitConfig is what agentbox needs of a set of git configuration files
// and the files they include.
type gitConfig struct {
	files      []string // every file, the given ones first
	included   []string // the ones reached through an include
	hooksPaths []string // the values of core.hooksPath, in order
	// tooMany says more than maxConfigFiles files were named: the rest
	// were not read, and what they set is not known.
	tooMany bool
}

// maxConfigFiles bounds the files one readGitConfig reads: agentbox holds
// every included file of a writable root read-only (a mount, or a held
// file where it is missing), and a config a command wrote could name
// twenty thousand (41 s of planning, TestRedteam39IncludeMany). People's
// configurations include a few.
const maxConfigFiles = 256

// readGitConfig reads files and every file they include (include.path and
// includeIf.*.path, whatever the condition: agentbox cannot tell which
// conditions will hold when git next runs), each once, to git's depth. An
// included file is configuration as surely as .git/config, wherever it
// lives.
func readGitConfig(files []string, home string) gitConfig {
	var c gitConfig
	seen := make(map[string]bool)
	var walk func(f string, depth int, isInclude bool)
	walk = func(f string, depth int, isInclude bool) {
		f = resolvePath(f)
		if seen[f] || depth > maxIncludeDepth {
			return
		}
		if len(c.files) == maxConfigFiles {
			c.tooMany = true
			return
		}
		seen[f] = true
		c.files = append(c.files, f)
		if isInclude {
			c.included = append(c.included, f)
		}
		b, err := readFollow(f) // no FIFO, no huge file: see readBounded
		if err != nil {
			return
		}
		for e := range gitConfigEntries(string(b)) {
			switch {
			case e.bad != "":
			case e.section == "core" && !e.sub && e.key == "hookspath":
				c.hooksPaths = append(c.hooksPaths, gitConfigValue(e.value))
			case e.key == "path" && (e.section == "include" && !e.sub || e.section == "includeif" && e.sub):
				v := gitConfigValue(e.value)
				switch {
				case v == "":
					continue
				case strings.HasPrefix(v, "~/"):
					if home == "" {
						continue
					}
					v = filepath.Join(home, v[2:])
				case !filepath.IsAbs(v):
					v = filepath.Join(filepath.Dir(f), v)
				}
				walk(v, depth+1, true)
			}
		}
	}
	for _, f := range files {
		walk(f, 0, false)
	}
	return c
}

// gitConfigValue unquotes a raw value and drops a trailing comment.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// enclosingRepos returns the .git entries of the directories above dir: a
// writable root may be part of a repository whose hooks live inside it.
func enclosingRepos(dir string) []string {
	var out []string
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if g := filepath.Join(d, ".git"); d != dir {
			if _, err := os.Lstat(g); err == nil {
				out = append(out, g)
			}
		}
		if d == "/" || d == "." {
			return out
		}
	}
}
