package agentbox

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
)

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

// quarantineNames are the names quarantine tries for name, in order: the
// plain one, then a few with a random part, which a command cannot have
// made in advance.
func quarantineNames(name string) []string {
	names := []string{name + quarantineSuffix}
	for range 4 {
		names = append(names, name+"."+rand.Text()[:12]+quarantineSuffix)
	}
	return names
}

// sweepNewRepos disables repositories below the writable roots that were
// not there before the command, if they could run code on the host, and
// reports each as a violation.
func sweepNewRepos(before map[string][]string, roots, relHooks []string) []Violation {
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
			reason := riskyGitDir(access.read, g, gitDirAllowance{})
			if reason == "" {
				reason = plantedHooks(g, relHooks)
			}
			if reason == "" {
				continue
			}
			v := Violation{Kind: "filesystem", Rule: "planted-repository", Path: g,
				Detail: fmt.Sprintf("%s was created by the command and %s", g, reason)}
			if to, err := quarantine(w, g); err != nil {
				v.Detail += "; agentbox could not disable it: " + err.Error()
			} else {
				v.Detail += "; agentbox renamed it to " + to
			}
			out = append(out, v)
		}
		// The root's own repository first: the budget is shared.
		out = append(out, sweepInnerGitDirs(w, old, append([]string{filepath.Join(w, ".git")}, candidates...))...)
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
func riskyRepo(gitPath string) string { return riskyGitDir(readNoFollow, gitPath, gitDirAllowance{}) }

// gitDirAllowance is what a git directory kept inside another may hold
// beyond what a repository of its own may (see innerGitDirs).
type gitDirAllowance struct {
	common string          // the directory its commondir may name
	keys   map[string]bool // config keys allowed beyond safeGitKeys
}

// riskyGitDir is riskyRepo with an allowance, reading the files it judges
// with read (readNoFollow, or scanAccess.read beneath the root). A file it
// cannot read (not a regular file, or too large: readBounded) makes the
// git directory risky.
func riskyGitDir(read func(string) ([]byte, error), gitPath string, allow gitDirAllowance) string {
	fi, err := os.Lstat(gitPath)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "is a symbolic link to a git directory elsewhere"
	}
	if !fi.IsDir() {
		if fi.Mode().IsRegular() && fi.Size() == int64(len(noRepositoryHold)) {
			if b, err := read(gitPath); err == nil && bytes.Equal(b, noRepositoryHold) {
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
	if _, err := os.Lstat(filepath.Join(gitPath, "config.worktree")); err == nil {
		return "has a config.worktree"
	}
	if _, err := os.Lstat(filepath.Join(gitPath, "commondir")); err == nil {
		b, err := read(filepath.Join(gitPath, "commondir"))
		if err != nil || allow.common == "" || relativeTo(gitPath, strings.TrimSpace(string(b))) != allow.common {
			return "has a commondir"
		}
	}
	b, err := read(filepath.Join(gitPath, "config"))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return "has a config that agentbox could not read (" + err.Error() + ")"
	}
	if key := unsafeGitKeyBeyond(string(b), allow.keys); key != "" {
		return "sets " + clipDetail(key) + " in its config"
	}
	return ""
}

// unsafeGitKey returns the first key of a git config text that is not plain
// bookkeeping. It reads the format loosely, on purpose: anything it does not
// understand counts as unsafe.
func unsafeGitKey(config string) string { return unsafeGitKeyBeyond(config, nil) }

// unsafeGitKeyBeyond is unsafeGitKey with the keys allowed also allowed.
func unsafeGitKeyBeyond(config string, allowed map[string]bool) string {
	for e := range gitConfigEntries(config) {
		switch {
		case e.bad != "":
			return e.bad
		case e.sub && !safeGitSubsectionKeys[e.section+"."+e.key]:
			return e.section + "." + e.key
		case !e.sub && !safeGitKeys[e.section+"."+e.key] && !allowed[e.section+"."+e.key]:
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
