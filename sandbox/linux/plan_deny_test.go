//go:build linux

package linux

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// heldLinks returns the links the plan holds (opHoldLink).
func heldLinks(pl *plan) []string {
	var out []string
	for _, op := range pl.init.Mounts {
		if op.Kind == opHoldLink {
			out = append(out, op.Dst)
		}
	}
	slices.Sort(out)
	return out
}

// TestBuildPlanHoldsDeniedLinks: a deny-read path in a writable root that
// is a link, or is named through a linked directory, has its links held
// (bound onto themselves), as a deny-write link's are; its target is
// masked. A link below a masked directory, or outside the writable roots,
// is not held.
func TestBuildPlanHoldsDeniedLinks(t *testing.T) {
	base := hostTempDir(t)
	w, outside := filepath.Join(base, "home"), filepath.Join(base, "elsewhere")
	mkTree(t, w, []string{"dotfiles/ssh", "dotfiles/config/gcloud", "private"}, []string{"dotfiles/npmrc", "dotfiles/ssh/id"})
	mkTree(t, outside, []string{"aws"}, nil)
	for l, dest := range map[string]string{
		".npmrc":       "dotfiles/npmrc",
		".ssh":         "dotfiles/ssh",
		".aws":         filepath.Join(outside, "aws"),
		".config":      "dotfiles/config",
		"private/link": "../dotfiles/npmrc",
		"hop":          ".npmrc",
	} {
		if err := os.Symlink(dest, filepath.Join(w, l)); err != nil {
			t.Fatal(err)
		}
	}
	in := func(rel string) string { return filepath.Join(w, rel) }
	for _, c := range []struct {
		name   string
		deny   []string // as the caller passes them: both names
		held   []string
		masked []string
	}{
		{name: "link to a file", deny: []string{in(".npmrc"), in("dotfiles/npmrc")},
			held: []string{in(".npmrc")}, masked: []string{in("dotfiles/npmrc")}},
		{name: "link to a directory", deny: []string{in(".ssh"), in("dotfiles/ssh")},
			held: []string{in(".ssh")}, masked: []string{in("dotfiles/ssh")}},
		{name: "link out of the root", deny: []string{in(".aws"), filepath.Join(outside, "aws")},
			held: []string{in(".aws")}, masked: []string{filepath.Join(outside, "aws")}},
		{name: "a chain of links", deny: []string{in("hop"), in("dotfiles/npmrc")},
			held: []string{in(".npmrc"), in("hop")}, masked: []string{in("dotfiles/npmrc")}},
		{name: "through a linked directory", deny: []string{in(".config/gcloud"), in("dotfiles/config/gcloud")},
			held: []string{in(".config")}, masked: []string{in("dotfiles/config/gcloud")}},
		{name: "below a masked directory", deny: []string{in("private"), in("private/link")},
			masked: []string{in("private")}},
		{name: "outside the writable roots", deny: []string{filepath.Join(outside, "aws")},
			masked: []string{filepath.Join(outside, "aws")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := buildPlan(&sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w}, DenyRead: c.deny}}, false)
			if err != nil {
				t.Fatal(err)
			}
			defer pl.removePlaceholders()
			if got := heldLinks(pl); !slices.Equal(got, c.held) {
				t.Errorf("held links %v, want %v", got, c.held)
			}
			for _, m := range c.masked {
				if op, _, ok := opAt(pl, m); !ok || (op.Kind != opMaskDir && op.Kind != opMaskFile) {
					t.Errorf("%s: %+v, want a mask", m, op)
				}
			}
		})
	}
}

// TestBuildPlanDenyMissingInShownDir: a deny path missing in a host
// directory shown read-only inside /tmp (a working directory, a home) is
// held by a placeholder on the host for the run, and masked, so a file the
// host makes there meanwhile stays hidden; elsewhere in the private areas
// nothing is mounted: the name lies in the sandbox's own tmpfs, where the
// host's file never shows.
func TestBuildPlanDenyMissingInShownDir(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "agentbox-visible-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	notShown := dir + "-not-shown/.aws"
	for _, c := range []struct {
		name        string
		fs          sandbox.Filesystem
		deny        string
		placeholder bool
	}{
		{name: "working directory", fs: sandbox.Filesystem{Visible: []string{dir}}, deny: filepath.Join(dir, ".aws"), placeholder: true},
		{name: "home", fs: sandbox.Filesystem{Home: dir}, deny: filepath.Join(dir, ".config/gcloud"), placeholder: true},
		{name: "read allow-list entry", fs: sandbox.Filesystem{Read: []string{dir}}, deny: filepath.Join(dir, ".netrc"), placeholder: true},
		{name: "not shown", fs: sandbox.Filesystem{Visible: []string{dir}}, deny: notShown},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.fs.DenyRead = []string{c.deny}
			pl, err := buildPlan(&sandbox.Spec{Filesystem: c.fs}, false)
			if err != nil {
				t.Fatal(err)
			}
			op, _, ok := opAt(pl, c.deny)
			if shown := c.placeholder; shown && (!ok || op.Kind != opMaskDir) {
				t.Errorf("%s: %+v, want a directory mask", c.deny, op)
			} else if !shown && ok {
				t.Errorf("%s: %+v, in the sandbox's own tmpfs: want no step", c.deny, op)
			}
			_, err = os.Lstat(c.deny)
			if made := err == nil; made != c.placeholder {
				t.Errorf("placeholder on the host: %v, want %v", made, c.placeholder)
			}
			pl.removePlaceholders()
			if _, err := os.Lstat(c.deny); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s is left after the run: %v", c.deny, err)
			}
		})
	}
}

// TestPrivateAreaPathsCostNoMount: a deny path, or a path to keep
// read-only, in a private area where nothing of the host's is shown (the
// manifests, logs and vaults of runs in the host's /tmp that keptfiles
// records: up to hundreds of them for a user) needs no mount: it lies in
// the sandbox's own tmpfs. Each had cost one per call; the same paths in a
// shown working directory keep theirs.
func TestPrivateAreaPathsCostNoMount(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "agentbox-shown-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, f := range []string{"run.yaml", "vault"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hidden := dir + "-not-shown"
	for _, c := range []struct {
		name   string
		fs     sandbox.Filesystem
		mounts bool
	}{
		{name: "not shown", fs: sandbox.Filesystem{DenyWrite: []string{filepath.Join(hidden, "run.yaml")}, DenyRead: []string{filepath.Join(hidden, "vault")}}},
		{name: "shown", fs: sandbox.Filesystem{Visible: []string{dir}, DenyWrite: []string{filepath.Join(dir, "run.yaml")}, DenyRead: []string{filepath.Join(dir, "vault")}}, mounts: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := buildPlan(&sandbox.Spec{Filesystem: c.fs}, false)
			if err != nil {
				t.Fatal(err)
			}
			defer pl.removePlaceholders()
			for _, p := range append(slices.Clone(c.fs.DenyWrite), c.fs.DenyRead...) {
				if _, _, ok := opAt(pl, p); ok != c.mounts {
					t.Errorf("%s: a step %v, want %v", p, ok, c.mounts)
				}
			}
			if !slices.Equal(pl.denyRead, c.fs.DenyRead) {
				t.Errorf("Landlock's deny list %v, want %v (the reduced tier's)", pl.denyRead, c.fs.DenyRead)
			}
		})
	}
}

// TestInShown: what is bound from the host into a private area (the
// resolver's file under /run, which /etc/resolv.conf may lead to) counts as
// shown, as a working directory in /tmp does: deny paths there are masked.
// The rest of a private area is the sandbox's own.
func TestInShown(t *testing.T) {
	b := &planner{shown: map[string]bool{"/tmp/work": true, "/home/u": true},
		ops: []mountOp{{Kind: opBindRO, Src: "/run/systemd/resolve/stub-resolv.conf", Dst: "/run/systemd/resolve/stub-resolv.conf"}, {Kind: opTmpfs, Dst: "/run"}}}
	for p, want := range map[string]bool{
		"/tmp/work/.env": true, "/tmp/other/.env": false,
		"/run/systemd/resolve/stub-resolv.conf": true, "/run/user/1000/bus": false,
		"/home/u/.env": false, // not in a private area: masked by the other rules
	} {
		if got := b.inShown(p); got != want {
			t.Errorf("inShown(%s) = %v, want %v", p, got, want)
		}
	}
}
