//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// mkdirChain makes n directories named seg, one inside the other, below
// dir, one relative step at a time (the chain may be longer than a path
// can name), and returns a descriptor of the last.
func mkdirChain(t *testing.T, dir, seg string, n int) int {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := unix.Mkdirat(fd, seg, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, seg, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	return fd
}

// TestLinkWalkOpaque: a walk for other names told of what it cannot look
// into (a chain deeper than maxWalkPath, a directory it may not read or
// not search, a name too long beside a short directory) reports it and
// goes on; without the report, the walk fails. Nothing is missed
// silently: the name the unreadable directories hold is either found or
// inside a reported directory.
func TestLinkWalkOpaque(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("as root, unreadable directories are read: only the deep cases report")
	}
	seg := strings.Repeat("d", 200)
	cases := []struct {
		name string
		make func(t *testing.T, root, file string) (opaque string) // opaque: what a walk must report ("" as root where readable)
	}{
		{"deep chain", func(t *testing.T, root, file string) string {
			fd := mkdirChain(t, root, seg, 25)
			defer unix.Close(fd)
			if err := unix.Linkat(unix.AT_FDCWD, file, fd, "z", 0); err != nil {
				t.Fatal(err)
			}
			p := root
			for len(p)+1+unix.NAME_MAX <= maxWalkPath {
				p = filepath.Join(p, seg)
			}
			return p
		}},
		{"long name beside a short directory", func(t *testing.T, root, file string) string {
			// A directory a path can name, holding a name no path can
			// (its path past PATH_MAX): the walk does not enter it.
			n := (3700 - len(root)) / (len(seg) + 1)
			p := root
			for range n {
				p = filepath.Join(p, seg)
			}
			last := strings.Repeat("e", 3900-len(p)-1)
			fd := mkdirChain(t, root, seg, n)
			defer unix.Close(fd)
			if err := unix.Mkdirat(fd, last, 0o755); err != nil {
				t.Fatal(err)
			}
			p = filepath.Join(p, last)
			dfd, err := unix.Openat(fd, last, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(dfd)
			long := strings.Repeat("z", 250)
			if err := unix.Linkat(unix.AT_FDCWD, file, dfd, long, 0); err != nil {
				t.Fatal(err)
			}
			if len(p) > unix.PathMax-1 || len(p)+1+len(long) <= unix.PathMax-1 {
				t.Fatalf("premise: %d bytes, the name %d", len(p), len(p)+1+len(long))
			}
			return p
		}},
		{"unreadable", func(t *testing.T, root, file string) string {
			d := filepath.Join(root, "trap")
			rt53Trap(t, d, file, 0o000)
			if os.Geteuid() == 0 {
				return ""
			}
			return d
		}},
		{"readable, not searchable", func(t *testing.T, root, file string) string {
			d := filepath.Join(root, "trap")
			rt53Trap(t, d, file, 0o400)
			if os.Geteuid() == 0 {
				return ""
			}
			return d
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			file := filepath.Join(root, "file")
			if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			want := tc.make(t, root, file)
			var opaque []string
			others, err := otherNamesIn([]string{file}, []string{root}, "test", func(d string) { opaque = append(opaque, d) })
			if err != nil {
				t.Fatalf("walk with opaque set: %v", err)
			}
			if want == "" {
				if len(others) != 1 || len(opaque) != 0 {
					t.Fatalf("readable: others %q opaque %q; want the one other name", others, opaque)
				}
				return
			}
			if !slices.Equal(opaque, []string{want}) {
				t.Errorf("opaque %q; want %q", opaque, want)
			}
			if len(others) != 0 {
				t.Errorf("others %q: the name lies in what the walk could not look into", others)
			}
			budget := maxLinkWalk
			if err := walkLinked(root, &budget, nil, func(string, *unix.Stat_t) {}, nil); err == nil {
				t.Errorf("a walk without opaque went on past %s", want)
			}
		})
	}
}

// rt53Trap makes d holding another name of file, then sets d's mode.
func rt53Trap(t *testing.T, d, file string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(file, filepath.Join(d, "z")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(d, 0o755) })
}

// TestPlanHidesOpaque: a protected file with another name, in a writable
// root that also holds a directory the walk cannot look into, is planned:
// the directory is masked, and a mount planned inside it (a protected name
// there) is dropped, since the mask hides it whole.
func TestPlanHidesOpaque(t *testing.T) {
	root := filepath.Join(hostTempDir(t), "proj")
	if err := os.MkdirAll(filepath.Join(root, ".husky"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(root, ".husky", "pre-commit")
	if err := os.WriteFile(hook, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(hook, filepath.Join(root, "y")); err != nil {
		t.Fatal(err)
	}
	fd := mkdirChain(t, root, strings.Repeat("d", 200), 25)
	unix.Close(fd)
	deep := root
	for len(deep)+1+unix.NAME_MAX <= maxWalkPath {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	// A protected name inside the chain, which the mask hides whole.
	inner := filepath.Join(deep, "x")
	if err := os.WriteFile(inner, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, inner)
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{root}, Protected: []string{".husky", rel}}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatalf("plan refused: %v", err)
	}
	defer pl.removePlaceholders()
	if op, _, ok := opAt(pl, filepath.Join(root, "y")); !ok || op.Kind != opBindRO {
		t.Errorf("the hook's other name is not held read-only: %+v", op)
	}
	if op, _, ok := opAt(pl, deep); !ok || op.Kind != opMaskDir {
		t.Errorf("the chain is not masked at %d bytes: %+v", len(deep), op)
	}
	for _, op := range pl.init.Mounts {
		if len(op.Dst) > len(deep) && strings.HasPrefix(op.Dst, deep+"/") {
			t.Errorf("a mount inside the mask: %s, %d bytes", op.Kind, len(op.Dst))
		}
	}
	if !slices.Contains(pl.denyRead, deep) {
		t.Errorf("the masked chain is not a deny path for Landlock")
	}
}

// TestLinkedUnderOpaque: in a directory kept read-only whole, a directory
// the walk cannot look into is passed over where no program of the host's
// reaches a file inside by its name (too deep, or not searchable), and
// refuses the sandbox where one may (searchable, not listable: a hook
// manager runs .husky/_/h by name).
func TestLinkedUnderOpaque(t *testing.T) {
	cases := []struct {
		name    string
		mode    os.FileMode
		deep    bool
		refused bool // as an unprivileged caller; root lists every directory
	}{
		{name: "deep", deep: true},
		{name: "no access", mode: 0o000},
		{name: "listable, not searchable", mode: 0o400},
		{name: "searchable, not listable", mode: 0o100, refused: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			husky := filepath.Join(t.TempDir(), ".husky")
			if err := os.Mkdir(husky, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(husky, "pre-commit")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.deep {
				unix.Close(mkdirChain(t, husky, strings.Repeat("d", 200), 25))
			} else {
				rt53Trap(t, filepath.Join(husky, "_"), file, tc.mode)
			}
			_, err := linkedUnder(husky)
			if refused := tc.refused && os.Geteuid() != 0; refused != (err != nil) {
				t.Errorf("refused %v (%v); want %v", err != nil, err, refused)
			}
		})
	}
}
