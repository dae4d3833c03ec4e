package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

func TestRunsGit(t *testing.T) {
	for _, tc := range []struct {
		shell string
		args  []string
		want  bool
	}{
		{"", []string{"git", "add", "."}, true},
		{"", []string{"/usr/bin/git", "commit"}, true},
		{"", []string{"make"}, false},
		{"git add . && git commit -m x", nil, true},
		{"cd sub;git status", nil, true},
		{"(git stash)", nil, true},
		{"echo legit; digit x", nil, false},
		{"cat .gitignore", nil, false},
	} {
		if got := runsGit(tc.shell, tc.args); got != tc.want {
			t.Errorf("runsGit(%q, %q) = %v, want %v", tc.shell, tc.args, got, tc.want)
		}
	}
}

func TestGitWriteHint(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	noRepo := t.TempDir()
	git := []string{"git", "add", "."}
	for _, tc := range []struct {
		name string
		fsc  agentbox.FilesystemConfig
		args []string
		code int
		want bool
	}{
		{"failed git in a repository", agentbox.FilesystemConfig{WritableRoots: []string{repo}}, git, 128, true},
		{"from a directory inside it", agentbox.FilesystemConfig{WritableRoots: []string{sub}}, git, 128, true},
		{"git succeeded", agentbox.FilesystemConfig{WritableRoots: []string{repo}}, git, 0, false},
		{"git writes allowed", agentbox.FilesystemConfig{WritableRoots: []string{repo}, AllowGitWrites: true}, git, 128, false},
		{"not git", agentbox.FilesystemConfig{WritableRoots: []string{repo}}, []string{"make"}, 2, false},
		{"no repository", agentbox.FilesystemConfig{WritableRoots: []string{noRepo}}, git, 128, false},
	} {
		if got := gitWriteHint(tc.fsc, "", tc.args, tc.code) != ""; got != tc.want {
			t.Errorf("%s: hint %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPrivateTmpHint(t *testing.T) {
	fsc := agentbox.FilesystemConfig{WritableRoots: []string{"/tmp/work"}, AllowRead: []string{"/tmp/in.txt"}}
	for _, tc := range []struct {
		name  string
		shell string
		args  []string
		code  int
		want  bool
	}{
		{"an argument in /tmp", "", []string{"cat", "/tmp/out.txt"}, 1, true},
		{"a flag's value", "", []string{"tool", "--input=/tmp/x.json"}, 2, true},
		{"in a shell string", "curl -s -o /tmp/page.html x && grep a </tmp/page.html", nil, 1, true},
		{"the command succeeded", "", []string{"cat", "/tmp/out.txt"}, 0, false},
		{"inside a writable root", "", []string{"cat", "/tmp/work/a"}, 1, false},
		{"a read allow-list entry", "", []string{"cat", "/tmp/in.txt"}, 1, false},
		{"no /tmp path", "", []string{"cat", "notes/tmp/a"}, 1, false},
		{"a look-alike", "", []string{"cat", "/tmpfiles/a"}, 1, false},
	} {
		if got := privateTmpHint(fsc, tc.shell, tc.args, tc.code) != ""; got != tc.want {
			t.Errorf("%s: hint %v, want %v", tc.name, got, tc.want)
		}
	}
}
