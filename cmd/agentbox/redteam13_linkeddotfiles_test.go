//go:build linux

package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRedteam13RunWithLinkedDotfiles: `agentbox run` with write: [.] in a
// project whose held configuration files are symbolic links, as a monorepo
// shares them (.envrc → ../shared/envrc, outside the writable root) and a
// tool directory keeps them (.pre-commit-config.yaml → tools/precommit.yaml,
// inside it), and in a home managed by GNU stow (~/.bashrc, ~/.gitconfig →
// dotfiles/…) with write: [~]. The run must start, the agent must read the
// configurations through their links, must neither write them through
// either name nor remove or replace the links, and after the run every link
// must be there with its target and content unchanged, with no placeholder
// left in the tree. Controls: an ordinary file is written.
func TestRedteam13RunWithLinkedDotfiles(t *testing.T) {
	type link struct{ name, target, content string }
	for _, tc := range []struct {
		name    string
		write   string
		links   []link
		targets map[string]string // files the links lead to (relative to the base)
	}{
		{
			name:  "monorepo",
			write: ".",
			links: []link{
				{".envrc", "../shared/envrc", "export MONO=1\n"},
				{".pre-commit-config.yaml", "tools/precommit.yaml", "repos: []\n"},
			},
			targets: map[string]string{"shared/envrc": "export MONO=1\n", "proj/tools/precommit.yaml": "repos: []\n"},
		},
		{
			name:  "stow_home",
			write: "~",
			links: []link{
				{".bashrc", "dotfiles/bash/.bashrc", "alias ll='ls -l'\n"},
				{".gitconfig", "dotfiles/git/.gitconfig", "[user]\n\tname = me\n"},
			},
			targets: map[string]string{"proj/dotfiles/bash/.bashrc": "alias ll='ls -l'\n", "proj/dotfiles/git/.gitconfig": "[user]\n\tname = me\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnv(t)
			// Outside /tmp, which the sandbox replaces with its own (the
			// monorepo's shared directory lies outside the writable root).
			base, err := os.MkdirTemp("/var/tmp", "r13c-linked-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			if err := os.Chmod(base, 0o755); err != nil {
				t.Fatal(err)
			}
			proj := filepath.Join(base, "proj")
			for rel, content := range tc.targets {
				p := filepath.Join(base, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.links {
				if err := os.Symlink(l.target, filepath.Join(proj, l.name)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.write == "~" {
				t.Setenv("HOME", proj)
				t.Setenv("XDG_DATA_HOME", "")
				t.Setenv("XDG_CONFIG_HOME", "")
			}
			manifest := filepath.Join(proj, "agent.yaml")
			src := "name: linked\npermissions:\n  filesystem: {write: [" + tc.write + "]}\n"
			if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, base)

			var script strings.Builder
			script.WriteString("cd " + proj + "; echo ok > own && echo OWN-WRITE\n")
			for _, l := range tc.links {
				n := l.name
				tgt := filepath.Join(filepath.Dir(filepath.Join(proj, n)), l.target)
				script.WriteString("cat " + n + " >/dev/null && echo READ:" + n + "\n")
				script.WriteString("echo evil >> " + n + " 2>/dev/null && echo WROTE:" + n + "\n")
				script.WriteString("echo evil >> " + tgt + " 2>/dev/null && echo WROTE-TARGET:" + n + "\n")
				script.WriteString("ln -sfn /etc/hostname " + n + " 2>/dev/null && echo RELINKED:" + n + "\n")
				script.WriteString("mv " + n + " " + n + ".moved 2>/dev/null && echo RENAMED:" + n + "\n")
				script.WriteString("rm -f " + n + " 2>/dev/null; [ -e " + n + " ] || echo REMOVED:" + n + "\n")
			}
			script.WriteString("rm -f own; echo DONE\n")
			code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c", script.String())
			t.Logf("run: exit %d, stdout %q, stderr %q", code, out, errOut)
			if code != 0 || !strings.Contains(out, "OWN-WRITE") || !strings.Contains(out, "DONE") {
				t.Fatalf("control: the run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			for _, l := range tc.links {
				if !strings.Contains(out, "READ:"+l.name) {
					t.Errorf("control: the agent could not read %s through its link", l.name)
				}
				for _, bad := range []string{"WROTE:", "WROTE-TARGET:", "RELINKED:", "RENAMED:", "REMOVED:"} {
					if strings.Contains(out, bad+l.name) {
						t.Errorf("ESCAPE: %s%s", bad, l.name)
					}
				}
				p := filepath.Join(proj, l.name)
				if got, err := os.Readlink(p); err != nil || got != l.target {
					t.Errorf("after the run %s links to %q (%v), want %q", l.name, got, err, l.target)
				}
				if b, err := os.ReadFile(p); err != nil || string(b) != l.content {
					t.Errorf("after the run %s reads %q (%v), want %q", l.name, b, err, l.content)
				}
			}
			after := listTree(t, base)
			if strings.Join(before, "\n") != strings.Join(after, "\n") {
				t.Errorf("the tree changed across the run (litter or lost files):\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// listTree lists every path below root with its kind, links with targets.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		kind := "f"
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			kind = "l->" + tgt
		case fi.IsDir():
			kind = "d"
		}
		out = append(out, rel+" "+kind)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
