package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/paths"
)

// execHints are the notes exec prints after the command, a line each.
func execHints(fsc agentbox.FilesystemConfig, shell string, args []string, code int) string {
	var notes []string
	for _, hint := range []func(agentbox.FilesystemConfig, string, []string, int) string{gitWriteHint, privateTmpHint} {
		if n := hint(fsc, shell, args, code); n != "" {
			notes = append(notes, n)
		}
	}
	return strings.Join(notes, "\n")
}

// gitWriteHint is the note exec prints after a failed command that ran git
// with a repository in (or around) a writable root whose .git the sandbox
// kept read-only: git's own message ("Unable to create
// '.../.git/index.lock': Read-only file system") does not say what to
// change. "" when that is not the case.
func gitWriteHint(fsc agentbox.FilesystemConfig, shell string, args []string, code int) string {
	if code == 0 || fsc.AllowGitWrites || fsc.AllowGitConfig || !runsGit(shell, args) {
		return ""
	}
	for _, w := range fsc.WritableRoots {
		for d := w; ; d = filepath.Dir(d) {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				return "agentbox: note: .git is read-only in the writable roots; if git failed writing it, --allow-git-writes lets it (hooks and config stay read-only)"
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return ""
}

// runsGit reports whether the command names git as a program: argv[0], or
// a word of the shell string.
func runsGit(shell string, args []string) bool {
	if shell == "" {
		return len(args) > 0 && filepath.Base(args[0]) == "git"
	}
	for _, w := range shellWords(shell) {
		if w == "git" || strings.HasSuffix(w, "/git") {
			return true
		}
	}
	return false
}

// shellWords splits a shell string, roughly, into the words a hint looks
// at (no quoting rules: a hint only needs to recognise a name).
func shellWords(shell string) []string {
	return strings.FieldsFunc(shell, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()`$<>'\"=", r) })
}

// privateTmpHint is the note exec prints after a failed command that names
// a path in /tmp outside every writable root and read allow-list entry:
// the sandbox's /tmp is its own and starts empty, so neither the host's
// files there nor what an earlier command wrote there are in it, which the
// command's own "No such file or directory" does not say. "" otherwise.
func privateTmpHint(fsc agentbox.FilesystemConfig, shell string, args []string, code int) string {
	if code == 0 {
		return ""
	}
	words := args
	if shell != "" {
		words = shellWords(shell)
	}
	for _, w := range words {
		if _, rest, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = rest // --out=/tmp/x
		}
		p := filepath.Clean(w)
		if !strings.HasPrefix(p, "/tmp/") || paths.WithinAny(p, fsc.WritableRoots) || paths.WithinAny(p, fsc.AllowRead) {
			continue
		}
		return "agentbox: note: each sandbox has its own empty /tmp: " + p +
			" from the host or from an earlier command is not in it; keep such files in a writable root (--write DIR)"
	}
	return ""
}
