package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExpandPath(t *testing.T) {
	const home, base = "/home/u", "/srv/agents/mail"
	tests := []struct{ raw, want string }{
		{"~", "/home/u"},
		{"~/", "/home/u"},
		{"~/.ssh", "/home/u/.ssh"},
		{"~/a/../b", "/home/u/b"},
		{"~/../../etc", "/etc"},
		{"data", "/srv/agents/mail/data"},
		{"./data/", "/srv/agents/mail/data"},
		{"../shared", "/srv/agents/shared"},
		{"../../../../..", "/"},
		{".", "/srv/agents/mail"},
		{"/a/./b//c/../d/", "/a/b/d"},
		{"/", "/"},
		{"~user", ""},
		{"~user/x", ""},
		{"", ""},
		{"a\x00b", ""},
	}
	for _, tt := range tests {
		got, err := ExpandPath(tt.raw, home, base)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ExpandPath(%q) = %q, want an error", tt.raw, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ExpandPath(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
	}
	if _, err := ExpandPath("~/x", "", base); err == nil || !strings.Contains(err.Error(), "home directory is unknown") {
		t.Errorf("~ without a home: err = %v", err)
	}
	if _, err := ExpandPath("x", home, "rel"); err == nil {
		t.Errorf("relative base accepted")
	}
}

// TestExpandPathDotDotAfterLink: a ".." after a symbolic link is read as
// the kernel reads it, from where the link leads, not by cleaning the
// path, which would name the file beside the link instead.
func TestExpandPathDotDotAfterLink(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"top/deep/dir", "home"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "top/deep/dir"), filepath.Join(base, "top/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "top/deep/dir"), filepath.Join(base, "home/l")); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(base, "top/deep/secret")
	for _, tc := range []struct{ raw, home, base string }{
		{filepath.Join(base, "top/link") + "/../secret", "", "/"},
		{"link/../secret", "", filepath.Join(base, "top")},
		{"~/l/../secret", filepath.Join(base, "home"), "/"},
	} {
		got, err := ExpandPath(tc.raw, tc.home, tc.base)
		if err != nil || got != want {
			t.Errorf("ExpandPath(%q) = %q, %v; want %q", tc.raw, got, err, want)
		}
	}
	if got := JoinPath(base, "top/./deep//dir"); got != filepath.Join(base, "top/deep/dir") {
		t.Errorf("without ..: %q", got)
	}
}

// TestManifestPathBase checks that relative paths are relative to the
// manifest's directory, not the working directory, and that ~ follows $HOME.
func TestManifestPathBase(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	sub := filepath.Join(dir, "agents")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(sub, "m.yaml")
	src := "name: a\npermissions:\n  filesystem: {read: [data, ~/docs], write: [../out]}\naudit: {log_path: ~}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	m, err := LoadManifest(file)
	if err != nil {
		t.Fatal(err)
	}
	fsp := m.Permissions.Filesystem
	got := []string{fsp.Read[0].Path, fsp.Read[1].Path, fsp.Write[0].Path, m.Audit.LogPath}
	want := []string{filepath.Join(sub, "data"), filepath.Join(home, "docs"), filepath.Join(dir, "out"), home}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}

	// A relative manifest path still yields absolute rules.
	t.Chdir(dir)
	m, err = LoadManifest(filepath.Join("agents", "m.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dir != sub || m.Permissions.Filesystem.Read[0].Path != filepath.Join(sub, "data") {
		t.Errorf("relative manifest path: Dir %q, read %q", m.Dir, m.Permissions.Filesystem.Read[0].Path)
	}
	// BaseDir overrides the manifest's directory.
	m, err = ParseManifestWith("<stdin>", []byte(src), LoadOptions{BaseDir: "/base", Home: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Permissions.Filesystem.Read[0].Path != "/base/data" || m.Permissions.Filesystem.Read[1].Path != "/h/docs" {
		t.Errorf("BaseDir/Home options ignored: %+v", m.Permissions.Filesystem.Read)
	}
}

// TestManifestSymlinkBase: a manifest loaded through a symbolic link
// resolves its relative paths beside the file the link leads to, and
// names the link in its errors.
func TestManifestSymlinkBase(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, links := filepath.Join(dir, "real"), filepath.Join(dir, "links")
	for _, d := range []string{real, links} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(real, "m.yaml"), []byte("name: a\npermissions:\n  filesystem: {read: [./data]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "bad.yaml"), []byte("name: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m.yaml", "bad.yaml"} {
		if err := os.Symlink(filepath.Join("..", "real", name), filepath.Join(links, name)); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(links, "m.yaml")
	m, err := LoadManifest(link)
	if err != nil {
		t.Fatal(err)
	}
	if m.File != link || m.Dir != real || m.Permissions.Filesystem.Read[0].Path != filepath.Join(real, "data") {
		t.Errorf("through a link: File %q, Dir %q, read %q; want %q, %q", m.File, m.Dir, m.Permissions.Filesystem.Read[0].Path, link, real)
	}
	bad := filepath.Join(links, "bad.yaml")
	if _, err := LoadManifest(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1:7: ") {
		t.Errorf("errors through a link: %v, want them at %s", err, bad)
	}
}

func TestResolvePath(t *testing.T) {
	root := t.TempDir()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/dir")
	mk("home")
	link(filepath.Join(root, "real"), "abs")   // absolute link to a directory
	link("real/dir", "rel")                    // relative link
	link("../real", "home/up")                 // relative link going up
	link(filepath.Join(root, "later"), "dang") // dangling: target does not exist yet
	link("loop2", "loop1")
	link("loop1", "loop2")
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct{ in, want string }{
		{"real/dir", "real/dir"},
		{"abs/dir", "real/dir"},
		{"abs", "real"},
		{"rel", "real/dir"},
		{"home/up/dir", "real/dir"},
		{"home/up/../home", "home"}, // .. applies after resolving up
		{"abs/missing/deeper", "real/missing/deeper"},
		{"dang", "later"},
		{"dang/x", "later/x"},
		{"missing", "missing"},
		{"file/x", "file/x"}, // ENOTDIR: cannot exist, kept as written
	}
	for _, tt := range tests {
		// Build the input without filepath.Join so that ".." survives.
		got, err := ResolvePath(root + "/" + tt.in)
		if err != nil || got != filepath.Join(root, tt.want) {
			t.Errorf("ResolvePath(%s) = %q, %v; want %q", tt.in, got, err, filepath.Join(root, tt.want))
		}
	}
	if _, err := ResolvePath(filepath.Join(root, "loop1")); !errors.Is(err, ErrTooManySymlinks) {
		t.Errorf("symlink loop: err = %v, want ErrTooManySymlinks", err)
	}
	if _, err := ResolvePath("relative"); err == nil {
		t.Errorf("relative path accepted")
	}
}

// TestManifestResolve checks the run-time resolution: read and write rules
// land on their targets, deny keeps both names, and errors carry positions.
func TestManifestResolve(t *testing.T) {
	root := t.TempDir()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "store/keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"store/keys", "keys"}, {"store", "data"}, {"loop", "loop"}} {
		if err := os.Symlink(filepath.Join(root, l[0]), filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	src := "name: r\npermissions:\n  filesystem:\n    read: [data, data]\n    write: [data/new]\n    deny: [keys, store/keys]\n"
	m, err := ParseManifestWith("r.yaml", []byte(src), LoadOptions{BaseDir: root, Home: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	// Links may change after loading; Resolve sees the filesystem as it is now.
	got, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := ResolvedPaths{
		Read:  []string{root + "/store"},
		Write: []string{root + "/store/new"},
		Deny:  []string{root + "/keys", root + "/store/keys"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve() = %+v, want %+v", got, want)
	}

	m, err = ParseManifestWith("r.yaml", []byte("name: r\npermissions:\n  filesystem:\n    deny: [ok, loop]\n"), LoadOptions{BaseDir: root})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Resolve()
	var me ManifestError
	if !errors.As(err, &me) || me.Line != 4 || me.Col != 16 || !errors.Is(err, ErrTooManySymlinks) {
		t.Errorf("Resolve() error = %v, want r.yaml:4:16 naming the symlink loop", err)
	}
}
