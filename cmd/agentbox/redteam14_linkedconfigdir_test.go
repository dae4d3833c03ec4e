//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam14ExecHomeWithLinkedConfigDir: a regression hunt for ordinary
// users. A home kept by a dotfile manager often has a whole directory as a
// link: GNU stow folds ~/.config into one link when a single package
// provides it (~/.config → dotfiles/config), and chezmoi/yadm users link it
// by hand. `agentbox exec --write ~` (and `run` with write: [~]) there must
// start, let the command write its own files, keep the held start-up files
// below the link (.config/fish, .config/git/config, the missing
// .config/autostart) read-only, keep the link, and leave no litter.
//
// Today every such run is refused before it starts (exit 125): "sandbox
// setup failed: placeholder for ~/.config/autostart: open parent
// ~/.config/autostart: too many levels of symbolic links". The placeholder
// for a missing held path is made with RESOLVE_NO_SYMLINKS through a path
// whose parent is the link; the recent link pinning (3da53d5, 5794083) holds
// a held name that is itself a link, not one reached through a linked
// directory. Controls: the same home with .config a plain directory, and
// the linked home with a project (not ~) as the writable root.
//
// Fixed: the plan resolves the links on the way to a protected name, a
// held file or a deny-write path (viaLinks), pins them, and holds the path
// where they lead: no mount or placeholder goes through a link.
func TestRedteam14ExecHomeWithLinkedConfigDir(t *testing.T) {
	for _, tc := range []struct {
		name   string
		linked bool   // ~/.config is a link to dotfiles/config
		write  string // "~" or "proj"
	}{
		{"control_plain_config_write_home", false, "~"},
		{"control_linked_config_write_project", true, "proj"},
		{"linked_config_write_home", true, "~"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnv(t)
			// Outside /tmp, which the sandbox replaces with its own.
			home, err := os.MkdirTemp("/var/tmp", "r14h-home-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(home) })
			if err := os.Chmod(home, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(home, ".config")
			if tc.linked {
				cfg = filepath.Join(home, "dotfiles", "config")
			}
			files := map[string]string{
				"git/config":       "[user]\n\tname = me\n",
				"fish/config.fish": "set -x EDITOR vi\n",
				"nvim/init.lua":    "-- nvim\n",
			}
			for rel, content := range files {
				p := filepath.Join(cfg, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.linked {
				if err := os.Symlink("dotfiles/config", filepath.Join(home, ".config")); err != nil {
					t.Fatal(err)
				}
			}
			proj := filepath.Join(home, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", home)
			t.Setenv("XDG_DATA_HOME", "")
			t.Setenv("XDG_CONFIG_HOME", "")
			write := home
			if tc.write == "proj" {
				write = proj
			}
			before := listTree(t, home)

			script := "echo ok > " + proj + "/own && echo OWN-WRITE\n" +
				"cat ~/.config/git/config >/dev/null && echo READ-GIT\n" +
				"echo evil >> ~/.config/fish/config.fish 2>/dev/null && echo WROTE-FISH\n" +
				"echo evil >> ~/.config/git/config 2>/dev/null && echo WROTE-GITCONFIG\n" +
				"rm -f " + proj + "/own; echo DONE\n"
			for i := 1; i <= 2; i++ { // a second run right after the first
				code, out, errOut := runCLI(t, "exec", "--write", write, "--", "/bin/sh", "-c", script)
				t.Logf("run %d: exit %d, stdout %q, stderr %q", i, code, out, errOut)
				if code != 0 || !strings.Contains(out, "OWN-WRITE") || !strings.Contains(out, "READ-GIT") || !strings.Contains(out, "DONE") {
					t.Fatalf("REGRESSION: run %d of `agentbox exec --write %s` (~/.config a link: %v): exit %d, stdout %q, stderr %q; want exit 0 and the command run", i, write, tc.linked, code, out, errOut)
				}
				for _, bad := range []string{"WROTE-FISH", "WROTE-GITCONFIG"} {
					if strings.Contains(out, bad) {
						t.Errorf("ESCAPE: %s (a held start-up file below ~/.config was written)", bad)
					}
				}
			}
			for rel, content := range files {
				if b, err := os.ReadFile(filepath.Join(home, ".config", rel)); err != nil || string(b) != content {
					t.Errorf("after the runs ~/.config/%s reads %q (%v), want %q", rel, b, err, content)
				}
			}
			after := listTree(t, home)
			// The state directory lives elsewhere (runEnv); agentbox's data
			// directory may appear under ~/.local.
			var keep []string
			for _, l := range after {
				if !strings.HasPrefix(l, ".local") {
					keep = append(keep, l)
				}
			}
			if strings.Join(before, "\n") != strings.Join(keep, "\n") {
				t.Errorf("the home changed across the runs (litter or lost files):\nbefore %q\nafter  %q", before, keep)
			}
		})
	}
}
