package agentbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/dirlist"
)

func TestResolvePath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(base, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/sub")
	mk("other")
	ln(filepath.Join(base, "real"), "abs") // absolute link
	ln("real/sub", "rel")                  // relative link
	ln("../real", "other/up")              // relative link with ..
	ln("abs", "chain")                     // link to a link
	ln(filepath.Join(base, "nowhere", "x"), "dangling")
	ln("loop2", "loop1")
	ln("loop1", "loop2")
	ln("../sub/../..", "real/sub/back") // .. after a link's directory
	mk("real/sub2")
	ln("rel/../sub2", "via") // .. after a link, in a link's target

	for _, tc := range []struct{ in, want string }{
		{"real/sub", "real/sub"},
		{"abs/sub", "real/sub"},
		{"rel", "real/sub"},
		{"other/up/sub", "real/sub"},
		{"chain/sub", "real/sub"},
		{"abs/missing/deeper", "real/missing/deeper"},
		{"dangling", "nowhere/x"},
		{"dangling/below", "nowhere/x/below"},
		{"loop1", "loop1"},
		{"loop1/x", "loop1/x"},
		{"abs/sub/back", ""}, // real/sub/../sub/../.. is base itself
		{"real/./sub/../sub", "real/sub"},
		// ".." applies to where a link before it leads (the kernel's
		// reading), not to the link's own directory (cleaning's).
		{"rel/../sub2", "real/sub2"},
		{"rel/../missing", "real/missing"},
		{"via", "real/sub2"},
		{"other/up/../other", "other"},
	} {
		in := base + "/" + tc.in // not Join, which cleans
		want := filepath.Join(base, tc.want)
		if got := resolvePath(in); got != want {
			t.Errorf("resolvePath(%s) = %s, want %s", tc.in, got, want)
		}
		// Where the path exists, the answer is filepath.EvalSymlinks's.
		if ev, err := filepath.EvalSymlinks(in); err == nil && ev != want {
			t.Errorf("%s: filepath.EvalSymlinks says %s, the test %s", tc.in, ev, want)
		}
	}

	// One resolver for many paths gives what one each gives.
	ps := []string{filepath.Join(base, "abs/a"), filepath.Join(base, "abs/b"), filepath.Join(base, "rel")}
	got := resolveAll(ps, false)
	for i, p := range ps {
		if got[i] != resolvePath(p) {
			t.Errorf("resolveAll: %s became %s, alone %s", p, got[i], resolvePath(p))
		}
	}
	// A relative path is taken from the working directory.
	t.Chdir(base)
	if got := resolvePath("abs/sub"); got != filepath.Join(base, "real/sub") {
		t.Errorf("relative: got %s", got)
	}
	if got := resolvePath("rel/../sub2"); got != filepath.Join(base, "real/sub2") {
		t.Errorf("relative, .. after a link: got %s", got)
	}
}

// TestLinkedWritableRoot: a writable root that only a symbolic link (which
// a command that could write there may have planted) turns into a system
// directory, the home, or its start-up files or credentials is refused;
// naming such a place outright, or a link to a harmless one, is not.
func TestLinkedWritableRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	for _, d := range []string{"home/.config/systemd/user", "home/.ssh", "home/proj", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	links := map[string]string{
		"to-etc": "/etc", "to-root": "/", "to-home": home, "to-units": filepath.Join(home, ".config/systemd/user"),
		"to-ssh": filepath.Join(home, ".ssh"), "to-proj": filepath.Join(home, "proj"), "to-elsewhere": filepath.Join(base, "elsewhere"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, "home/proj", name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{"home/proj/to-etc", true},
		{"home/proj/to-root", true},
		{"home/proj/to-home", true},
		{"home/proj/to-units", true},
		{"home/proj/to-ssh", true},
		{"home/proj/to-proj", false},
		{"home/proj/to-elsewhere", false},
		{"home", false},                      // the home, named outright
		{"home/.config/systemd/user", false}, // named outright: the caller means it
		{"home/proj", false},
	} {
		p := filepath.Join(base, tc.path)
		err := checkWritable("WritableRoots", []string{p})
		if (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused=%v", tc.path, err, tc.refused)
		}
		if err != nil && (!errors.Is(err, ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link")) {
			t.Errorf("%s: %v, want ErrConfigInvalid naming the link", tc.path, err)
		}
	}
}

// A resolver that has read a directory's listing (after listAfter lookups
// below it) resolves as one that looks each name up.
func TestResolverListing(t *testing.T) {
	dir := t.TempDir()
	target := t.TempDir()
	for _, d := range []string{"sub", "real"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"link": target, "rel": "real", "loop": "loop", "dangling": "nowhere/x"} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, n := range []string{"m1", "m2", "m3", "m4", "m5/x", "file", "sub/y", "link/z", "rel/w", "loop/v", "dangling", "link"} {
		paths = append(paths, filepath.Join(dir, n))
	}
	got := resolveAll(paths, false)
	var want []string
	for _, p := range paths {
		want = append(want, resolvePath(p)) // a fresh resolver: one lstat per name
	}
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		t.Errorf("with the listing:\n%q\nwant\n%q", got, want)
	}
	var res resolver
	for _, p := range paths {
		res.resolve(p)
	}
	if _, _, listed := res.dirs.Type(dir, "m1"); !listed {
		if dirlist.Lists(dir) {
			t.Fatalf("the directory was not listed after %d lookups", len(paths))
		}
		return // not listed on this file system: resolved name by name, as above
	}
	if res.resolve(filepath.Join(dir, "link", "z")) != filepath.Join(target, "z") {
		t.Errorf("link not followed from the listing")
	}
}

// TestDenyNamesThroughLinks: a deny path that is a link is kept beside its
// target, named with its directories resolved (a root named through a
// link too); one reached through a linked directory inside a writable
// root is named from that link, for the plan to hold it.
func TestDenyNamesThroughLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(base, "w")
	for _, d := range []string{"w/dotfiles/config/gcloud", "w/dotfiles/ssh"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for l, dest := range map[string]string{"wlink": "w", "w/.ssh": "dotfiles/ssh", "w/.config": "dotfiles/config", "w/dotfiles/cfg": "config"} {
		if err := os.Symlink(dest, filepath.Join(base, l)); err != nil {
			t.Fatal(err)
		}
	}
	in := func(rel string) string { return filepath.Join(base, rel) }
	for _, c := range []struct {
		name    string
		deny    string
		all     []string // resolveAll(..., true)
		through []string // throughLinks with w as the writable root
	}{
		{name: "a link", deny: in("w/.ssh"), all: []string{in("w/dotfiles/ssh"), in("w/.ssh")}},
		{name: "a link in a root named through a link", deny: in("wlink/.ssh"), all: []string{in("w/dotfiles/ssh"), in("w/.ssh")}},
		{name: "through a linked directory", deny: in("w/.config/gcloud"), all: []string{in("w/dotfiles/config/gcloud")},
			through: []string{in("w/.config/gcloud")}},
		{name: "a .. after a link, left to the kernel", deny: in("w/.config") + "/../cfg/gcloud", all: []string{in("w/dotfiles/config/gcloud")}},
		{name: "from the first link in the root", deny: in("wlink/dotfiles/cfg/gcloud"), all: []string{in("w/dotfiles/config/gcloud")},
			through: []string{in("w/dotfiles/cfg/gcloud")}},
		{name: "no link", deny: in("w/dotfiles/ssh"), all: []string{in("w/dotfiles/ssh")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := resolveAll([]string{c.deny}, true); !slices.Equal(got, c.all) {
				t.Errorf("resolveAll: %v, want %v", got, c.all)
			}
			if got := new(resolver).throughLinks([]string{c.deny}, []string{w}); !slices.Equal(got, c.through) {
				t.Errorf("throughLinks: %v, want %v", got, c.through)
			}
		})
	}
}

// soughtLinks leaves the built-in default deny set out: every sandbox of
// the default policy masks it, so none can have linked a file of it.
func TestSoughtLinksLeavesDefaultsOut(t *testing.T) {
	own := filepath.Join(t.TempDir(), "keys")
	got := soughtLinks(append(DefaultDenyRead(), own), defaultDenySet(), new(resolver))
	if len(got) != 1 || got[0] != resolvePath(own) {
		t.Fatalf("soughtLinks = %q, want only %s", got, own)
	}
	if got := soughtLinks(DefaultDenyRead(), defaultDenySet(), new(resolver)); got != nil {
		t.Fatalf("the default set alone: %q, want none", got)
	}
}
