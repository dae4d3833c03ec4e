package agentbox

import (
	"os"
	"path/filepath"
	"testing"
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
	} {
		in := filepath.Join(base, tc.in)
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
}
