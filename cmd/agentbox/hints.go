package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox"
)

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
	words := strings.FieldsFunc(shell, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()`$", r) })
	for _, w := range words {
		if w == "git" || strings.HasSuffix(w, "/git") {
			return true
		}
	}
	return false
}
