//go:build linux

package linux

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// opAt finds the plan's mount step at dst.
func opAt(pl *plan, dst string) (mountOp, int, bool) {
	for i, op := range pl.init.Mounts {
		if op.Dst == dst {
			return op, i, true
		}
	}
	return mountOp{}, -1, false
}

// hostTempDir is a temporary directory outside the areas every sandbox
// replaces with its own (/tmp, /dev/shm, /run).
func hostTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestBuildPlan(t *testing.T) {
	dir := hostTempDir(t)
	w := filepath.Join(dir, "work")
	secret := filepath.Join(dir, "secret")
	for _, d := range []string{w, filepath.Join(w, ".git", "hooks"), secret, filepath.Join(w, "keys")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{
		Writable:  []string{w, filepath.Join(secret, "inside")},
		DenyRead:  []string{secret, filepath.Join(dir, "token"), filepath.Join(w, "keys"), filepath.Join(w, "not-yet"), filepath.Join(dir, "nowhere")},
		DenyWrite: []string{filepath.Join(w, "later")},
		Protected: []string{".git/hooks", ".vscode"},
	}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()

	checks := []struct {
		dst  string
		kind opKind
	}{
		{w, opBindRW},
		{secret, opMaskDir},
		{filepath.Join(dir, "token"), opMaskFile},
		{filepath.Join(w, "keys"), opMaskDir},
		{filepath.Join(w, ".git", "hooks"), opBindRO},
		{filepath.Join(w, "not-yet"), opMaskDir}, // a placeholder makes it maskable
		{filepath.Join(w, "later"), opBindRO},
		{"/run", opTmpfs},
	}
	for _, c := range checks {
		op, _, ok := opAt(pl, c.dst)
		if !ok || op.Kind != c.kind {
			t.Errorf("%s: got %+v (found %v), want %s", c.dst, op, ok, c.kind)
		}
	}
	if _, _, ok := opAt(pl, filepath.Join(secret, "inside")); ok {
		t.Error("a writable root inside a denied path was kept: deny must win")
	}
	// A missing protected name becomes a read-only placeholder; the
	// directories between the writable root and what is protected are pinned.
	if op, _, ok := opAt(pl, filepath.Join(w, ".vscode")); !ok || op.Kind != opBindRO {
		t.Errorf("missing protected .vscode: %+v %v", op, ok)
	}
	if op, _, ok := opAt(pl, filepath.Join(w, ".git")); !ok || op.Kind != opPin {
		t.Errorf(".git is not pinned: %+v %v", op, ok)
	}
	if _, _, ok := opAt(pl, filepath.Join(dir, "nowhere")); ok {
		t.Error("a missing deny path outside writable areas got a mount")
	}
	// Masks and read-only binds inside the writable root come after it.
	_, wi, _ := opAt(pl, w)
	for _, p := range []string{filepath.Join(w, "keys"), filepath.Join(w, ".git", "hooks"), filepath.Join(w, "not-yet")} {
		if _, i, _ := opAt(pl, p); i < wi {
			t.Errorf("%s is mounted before its writable root", p)
		}
	}
	for _, p := range []string{filepath.Join(w, "not-yet"), filepath.Join(w, "later"), filepath.Join(w, ".vscode")} {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			t.Errorf("placeholder %s missing: %v", p, err)
		}
	}
	// Landlock carves out the deny paths outside writable roots only.
	ll := pl.init.Landlock
	if !contains(ll.DenyRead, secret) || contains(ll.DenyRead, filepath.Join(w, "keys")) {
		t.Errorf("landlock deny set %v", ll.DenyRead)
	}
	pl.removePlaceholders()
	for _, p := range []string{filepath.Join(w, "not-yet"), filepath.Join(w, "later"), filepath.Join(w, ".vscode")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("placeholder %s left behind: %v", p, err)
		}
	}
}

func TestBuildPlanRefusesRelativePaths(t *testing.T) {
	for _, fsSpec := range []sandbox.Filesystem{
		{Writable: []string{"rel"}},
		{DenyRead: []string{"/a/../b"}},
	} {
		if _, err := buildPlan(&sandbox.Spec{Filesystem: fsSpec}, false); err == nil {
			t.Errorf("%+v: accepted", fsSpec)
		}
	}
}

func TestPlaceholderRefcount(t *testing.T) {
	d := filepath.Join(hostTempDir(t), "p")
	placeholders.begin()
	a, err := placeholders.create([]string{d})
	if err != nil {
		t.Fatal(err)
	}
	placeholders.begin()
	b, err := placeholders.create([]string{d})
	if err != nil {
		t.Fatal(err)
	}
	placeholders.end(a)
	if _, err := os.Stat(d); err != nil {
		t.Fatal("released while another sandbox still holds it")
	}
	placeholders.end(b)
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatal("not removed after the last release")
	}
}

// TestPlaceholderMadeMeanwhile: a missing path that another sandbox's
// placeholder makes between the plan's first look and its walk up to what
// exists is used as it is.
func TestPlaceholderMadeMeanwhile(t *testing.T) {
	p := filepath.Join(hostTempDir(t), "a", "b")
	testHookMissing = func(q string) {
		if q == p {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { testHookMissing = nil }()
	placeholders.begin()
	pl := &plan{began: true}
	defer pl.removePlaceholders()
	isDir, err := pl.ensureExists(p, true)
	if err != nil || !isDir {
		t.Fatalf("ensureExists = %v, %v; want a directory", isDir, err)
	}
}

// TestPlaceholdersOfOtherProcesses: a placeholder another process relies
// on (it has a sandbox that uses it as a mountpoint) is not removed; the
// journal keeps it, and the first sandbox to end after that process is
// done removes it, and a hold file only while it is as written. A
// placeholder no other process relies on goes at once, whatever else other
// processes run.
func TestPlaceholdersOfOtherProcesses(t *testing.T) {
	dir := hostTempDir(t)
	d, hold, changed := filepath.Join(dir, "p"), filepath.Join(dir, "hold"), filepath.Join(dir, "changed")
	usersDir, free := filepath.Join(dir, "users"), filepath.Join(dir, "free")
	other := relyOn(t, d, hold, changed, usersDir) // another open file description: another owner
	placeholders.begin()
	var taken []string
	for _, p := range []string{d, usersDir, free} {
		more, err := placeholders.create([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, more...)
	}
	// Removed and made again by the user (as mkdir does: 0755): not ours.
	if err := os.Remove(usersDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(usersDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{hold, changed} {
		fs, err := placeholders.createFile(f, []byte("gitdir: /nonexistent\n"))
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, fs...)
	}
	if err := os.WriteFile(changed, []byte("the user's now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	placeholders.end(taken)
	for _, p := range []string{d, hold, changed} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s removed while another process relies on it: %v", p, err)
		}
	}
	if _, err := os.Lstat(free); !os.IsNotExist(err) {
		t.Errorf("a placeholder no other process relies on stayed: %v", err)
	}
	other.Close()
	placeholders.begin() // the next sandbox removes what was left
	placeholders.end(nil)
	for _, p := range []string{d, hold} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind once no process relied on it: %v", p, err)
		}
	}
	if _, err := os.Lstat(usersDir); err != nil {
		t.Errorf("the user's own directory at a placeholder's path was removed: %v", err)
	}
	if b, err := os.ReadFile(changed); err != nil || string(b) != "the user's now\n" {
		t.Errorf("a hold file the user changed was removed or changed: %q, %v", b, err)
	}
	if es := placeholders.store.journalFor(dir); len(es) > 0 {
		t.Errorf("journal still lists %v", es)
	}
}

// relyOn takes the placeholder locks of ps shared through a file
// description of its own, as another agentbox process would.
func relyOn(t *testing.T, ps ...string) *os.File {
	t.Helper()
	dir, err := paths.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := paths.Ensure(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "placeholders.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		lk := unix.Flock_t{Type: unix.F_RDLCK, Start: lockOffset(p), Len: 1}
		if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestPins(t *testing.T) {
	got := pins([]string{"/w"}, []string{"/w/a/b/c", "/w/a/x", "/w/top", "/w/a"})
	var dsts []string
	for _, op := range got {
		if op.Kind != opPin {
			t.Fatalf("%+v", op)
		}
		dsts = append(dsts, op.Dst)
	}
	// /w/a has a mount of its own already; /w itself is the root's mount.
	if want := []string{"/w/a/b"}; !reflect.DeepEqual(dsts, want) {
		t.Fatalf("pins %v, want %v", dsts, want)
	}
}

// TestBuildPlanVisible checks which paths inside the private areas the plan
// shows read-only (the working directory, the read allow-list's entries),
// and that masks inside one land on top of it.
func TestBuildPlanVisible(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "agentbox-visible-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	keys := filepath.Join(dir, "keys")
	file := filepath.Join(dir, "file")
	if err := os.Mkdir(keys, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := hostTempDir(t)
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name  string
		fs    sandbox.Filesystem
		shown []string // bound read-only from the host
		err   bool
	}{
		{name: "working directory inside /tmp", fs: sandbox.Filesystem{Visible: []string{dir}}, shown: []string{dir}},
		{name: "the private area itself", fs: sandbox.Filesystem{Visible: []string{"/tmp"}}},
		{name: "working directory inside /run", fs: sandbox.Filesystem{Visible: []string{"/run/user"}}},
		{name: "outside the private areas", fs: sandbox.Filesystem{Visible: []string{outside}}},
		{name: "in a writable root already", fs: sandbox.Filesystem{Visible: []string{keys}, Writable: []string{dir}}},
		{name: "denied", fs: sandbox.Filesystem{Visible: []string{keys}, DenyRead: []string{dir}}},
		{name: "outside the read allow-list", fs: sandbox.Filesystem{Visible: []string{dir}, Read: []string{outside}}},
		{name: "inside the read allow-list", fs: sandbox.Filesystem{Visible: []string{dir}, Read: []string{dir}}, shown: []string{dir}},
		{name: "read allow-list entries", fs: sandbox.Filesystem{Read: []string{outside, keys, file, missing}}, shown: []string{keys, file}},
		{name: "home inside /tmp", fs: sandbox.Filesystem{Home: dir}, shown: []string{dir}},
		{name: "home outside the read allow-list", fs: sandbox.Filesystem{Home: dir, Read: []string{outside}}},
		{name: "working directory a file", fs: sandbox.Filesystem{Visible: []string{file}}, err: true},
		{name: "working directory missing", fs: sandbox.Filesystem{Visible: []string{missing}}, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := buildPlan(&sandbox.Spec{Filesystem: c.fs}, false)
			if c.err {
				if err == nil {
					pl.removePlaceholders()
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer pl.removePlaceholders()
			for _, p := range append(append([]string{c.fs.Home}, c.fs.Visible...), c.fs.Read...) {
				op, _, ok := opAt(pl, p)
				got, want := ok && op.Kind == opBindRO && op.Src == p, slices.Contains(c.shown, p)
				if got != want {
					t.Errorf("%s: got %+v (found %v), want shown %v", p, op, ok, want)
				}
			}
		})
	}
	pl, err := buildPlan(&sandbox.Spec{Filesystem: sandbox.Filesystem{Visible: []string{dir}, DenyRead: []string{keys}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	_, bind, _ := opAt(pl, dir)
	mask, at, ok := opAt(pl, keys)
	if !ok || mask.Kind != opMaskDir || at < bind {
		t.Errorf("deny path inside the visible directory: %+v at step %d, the bind at %d; want a mask after the bind", mask, at, bind)
	}
}

func TestScratchDirs(t *testing.T) {
	dir := hostTempDir(t)
	mk := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cache, npm, denied, work, nested := mk("cache"), mk("npm"), mk("denied"), mk("work"), mk("cache/sub")
	inWork, restricted, file, link := mk("work/cache"), mk("outside-read"), filepath.Join(dir, "file"), filepath.Join(dir, "link")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cache, link); err != nil {
		t.Fatal(err)
	}
	comma := mk("a,b")
	fsSpec := sandbox.Filesystem{
		Scratch: []string{npm, cache, nested, denied, inWork, file, link, filepath.Join(dir, "missing"), comma, "/tmp/x", restricted},
		Read:    []string{cache, npm, denied, work, file, link, comma, "/tmp"},
	}
	isDenied := func(p string) bool { return p == denied }
	got := scratchDirs(fsSpec, []string{work}, isDenied)
	if want := []string{cache, npm}; !reflect.DeepEqual(got, want) {
		t.Errorf("scratchDirs = %q, want %q", got, want)
	}

	// In the plan: an overlay each, write rights in Landlock, and a deny
	// path inside one masked (the init makes a missing one in the overlay)
	// rather than left to Landlock.
	token := filepath.Join(cache, "token")
	pl, err := buildPlan(&sandbox.Spec{Filesystem: sandbox.Filesystem{Scratch: []string{cache}, DenyRead: []string{token}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	ov, i, ok := opAt(pl, cache)
	mask, j, okMask := opAt(pl, token)
	switch {
	case !ok || ov.Kind != opOverlay:
		t.Errorf("no overlay for %s: %+v", cache, pl.init.Mounts)
	case !okMask || mask.Kind != opMaskDir || j < i:
		t.Errorf("the missing deny path %s is not masked after the overlay: %+v", token, pl.init.Mounts)
	}
	if !slices.Contains(pl.init.Landlock.WriteRoots, cache) || slices.Contains(pl.init.Landlock.DenyRead, token) {
		t.Errorf("landlock spec %+v: want %s writable, %s left to the mask", pl.init.Landlock, cache, token)
	}
	if _, err := os.Lstat(token); err == nil {
		t.Errorf("the plan made %s on the host", token)
	}
}

// TestScratchFailure: when the kernel refuses an overlay, its directory
// stays read-only, Landlock included, and the deny paths inside it are
// Landlock's again.
func TestScratchFailure(t *testing.T) {
	s := &initSpec{
		Mounts: []mountOp{
			{Kind: opOverlay, Dst: "/h/.cache"}, {Kind: opMaskDir, Dst: "/h/.cache/hf/token"},
			{Kind: opMaskFile, Dst: "/h/other"}, {Kind: opBindRO, Dst: "/h/.cache/ro"},
		},
		Landlock: landlockSpec{WriteRoots: []string{"/w", "/h/.cache", "/tmp"}, DenyRead: []string{"/d"}},
	}
	var o overlays
	o.made = []string{"/h/.npm"}
	o.fail(s, "/h/.cache", errors.New("refused"))
	if want := []string{"/w", "/tmp"}; !reflect.DeepEqual(s.Landlock.WriteRoots, want) {
		t.Errorf("write roots %q, want %q", s.Landlock.WriteRoots, want)
	}
	if want := []string{"/d", "/h/.cache/hf/token"}; !reflect.DeepEqual(s.Landlock.DenyRead, want) {
		t.Errorf("deny %q, want %q", s.Landlock.DenyRead, want)
	}
	if got, want := o.layer(), "scratch(/h/.npm: writable, changes discarded; UNAVAILABLE, read-only: /h/.cache: refused)"; got != want {
		t.Errorf("layer %q, want %q", got, want)
	}
	if got := new(overlays).layer(); got != "" {
		t.Errorf("no scratch directories: layer %q", got)
	}
}

// TestRootReadAllowListInHome: for a root caller, the read allow-list's
// entries inside the home (not listed whole) are idmapped like the home,
// once each; entries elsewhere are not.
func TestRootReadAllowListInHome(t *testing.T) {
	dir := hostTempDir(t)
	home := filepath.Join(dir, "home")
	proj, sub, other := filepath.Join(home, "proj"), filepath.Join(home, "proj", "sub"), filepath.Join(dir, "other")
	for _, d := range []string{sub, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pl, err := buildPlan(&sandbox.Spec{Filesystem: sandbox.Filesystem{Home: home, Read: []string{sub, proj, other}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	var got []string
	for _, m := range pl.idmapped {
		got = append(got, m.path)
	}
	if want := []string{proj}; !reflect.DeepEqual(got, want) {
		t.Errorf("idmapped %q, want %q", got, want)
	}
	if op, _, ok := opAt(pl, proj); !ok || op.Kind != opIdmapRO {
		t.Errorf("no read-only idmapped mount at %s: %+v", proj, pl.init.Mounts)
	}
}

// journalFor lists the journal's entries under dir .
func (s *stateStore) journalFor(dir string) []journalEntry {
	var out []journalEntry
	for _, e := range s.readJournal() {
		if strings.HasPrefix(e.path, dir+"/") {
			out = append(out, e)
		}
	}
	return out
}

// TestPlaceholderWithoutLocks: where the lock file takes no locks, a
// sandbox still gets its placeholders (kept afterwards, as without a state
// directory) instead of failing to start.
func TestPlaceholderWithoutLocks(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // every lock on it fails
	r := placeholderRegistry{store: &stateStore{dir: t.TempDir(), lock: f}}
	d := filepath.Join(hostTempDir(t), "p")
	taken, err := r.create([]string{d})
	if err != nil {
		t.Fatalf("create without locks: %v", err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatal(err)
	}
	r.store.lock = nil
	r.active = 1
	r.end(taken)
	if _, err := os.Stat(d); err != nil {
		t.Errorf("a placeholder no lock protects was removed: %v", err)
	}
}

// TestBuildPlanHoldsLinks: protected names and deny-write paths that are
// symbolic links (a dotfile manager's .bashrc, a monorepo's shared
// configuration) are held with opHoldLink, each link of a chain once and
// last, and their targets inside the writable root bound read-only, a
// missing one too.
func TestBuildPlanHoldsLinks(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "home")
	if err := os.MkdirAll(filepath.Join(w, "dotfiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "dotfiles", "bashrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, dest := range map[string]string{
		".bashrc":      "dotfiles/bashrc",
		"dotfiles/hop": "bashrc",
		".envrc":       "dotfiles/hop",
		".mise.toml":   "dotfiles/missing",
	} {
		if err := os.Symlink(dest, filepath.Join(w, link)); err != nil {
			t.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{
		Writable:           []string{w},
		DenyWrite:          []string{filepath.Join(w, ".bashrc")},
		Protected:          []string{".bashrc", ".envrc"},
		ProtectedIfPresent: []string{".mise.toml"},
	}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	target := filepath.Join(w, "dotfiles", "bashrc")
	want := map[string]bool{
		filepath.Join(w, ".bashrc"):      true,
		filepath.Join(w, ".envrc"):       true,
		filepath.Join(w, "dotfiles/hop"): true,
		filepath.Join(w, ".mise.toml"):   true,
	}
	got := map[string]bool{}
	sawHold := false
	for _, op := range pl.init.Mounts {
		switch {
		case op.Kind == opHoldLink:
			if got[op.Dst] {
				t.Errorf("%s held twice", op.Dst)
			}
			got[op.Dst] = true
			sawHold = true
		case sawHold:
			t.Errorf("%s %s after a held link: links are held last", op.Kind, op.Dst)
		case want[op.Dst]:
			t.Errorf("%s bound as %s: a link cannot be a mountpoint that way", op.Dst, op.Kind)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("held links %v, want %v", got, want)
	}
	if !slices.ContainsFunc(pl.init.Mounts, func(op mountOp) bool { return op.Kind == opBindRO && op.Dst == target }) {
		t.Errorf("the links' target %s is not bound read-only", target)
	}
	if !slices.ContainsFunc(pl.init.Mounts, func(op mountOp) bool {
		return op.Kind == opBindRO && op.Dst == filepath.Join(w, "dotfiles", "missing")
	}) {
		t.Error("the missing target of a link is not held")
	}
}

// TestFollowLinks follows links as the kernel does: ".." after a link is
// taken from where the link leads, not from the link's own directory, and
// every link on the way is listed, a directory's too.
func TestFollowLinks(t *testing.T) {
	d := hostTempDir(t)
	for _, dir := range []string{"root/sub", "away/deep"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"away/conf", "root/conf", "root/file"} {
		if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"root/dirlink": filepath.Join(d, "away/deep"),
		"root/dotdot":  "dirlink/../conf", // the kernel: away/conf
		"root/plain":   "file",
		"root/hop":     "plain",
		"root/abs":     filepath.Join(d, "root/sub/../conf"),
		"root/nowhere": "sub/missing",
		"root/loop1":   "loop2",
		"root/loop2":   "loop1",
	}
	for l, dest := range links {
		if err := os.Symlink(dest, filepath.Join(d, l)); err != nil {
			t.Fatal(err)
		}
	}
	r := func(p string) string { return filepath.Join(d, p) }
	for _, tt := range []struct {
		link   string
		chain  []string
		target string
	}{
		{"root/dotdot", []string{r("root/dotdot"), r("root/dirlink")}, r("away/conf")},
		{"root/dirlink/../conf", []string{r("root/dirlink")}, r("away/conf")},
		{"root/hop", []string{r("root/hop"), r("root/plain")}, r("root/file")},
		{"root/abs", []string{r("root/abs")}, r("root/conf")},
		{"root/nowhere", []string{r("root/nowhere")}, r("root/sub/missing")},
	} {
		chain, target := new(planner).followLinks(d + "/" + tt.link) // not Join: it would clean ".."
		if !slices.Equal(chain, tt.chain) || target != tt.target {
			t.Errorf("followLinks(%s) = %v, %s; want %v, %s", tt.link, chain, target, tt.chain, tt.target)
		}
	}
	if chain, target := new(planner).followLinks(r("root/loop1")); len(chain) != 40 || target != "" {
		t.Errorf("a loop gave a chain of %d links and the target %q, want the kernel's 40 and none", len(chain), target)
	}
}

// TestBuildPlanThroughLinkedDir: protected names, held files and deny-write
// paths reached through a linked directory (a home whose .config a dotfile
// manager links) are held where the link leads, and the link is pinned.
func TestBuildPlanThroughLinkedDir(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "home")
	conf := filepath.Join(w, "dotfiles", "config")
	if err := os.MkdirAll(filepath.Join(conf, "fish"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dotfiles/config", filepath.Join(w, ".config")); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{
		Writable:  []string{w},
		Protected: []string{".config/fish", ".config/autostart"},
		DenyWrite: []string{filepath.Join(w, ".config", "fish")},
		Holds:     map[string][]byte{filepath.Join(w, ".config", "git", "config"): nil},
	}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	has := func(kind opKind, dst string) bool {
		return slices.ContainsFunc(pl.init.Mounts, func(op mountOp) bool { return op.Kind == kind && op.Dst == dst })
	}
	if !has(opHoldLink, filepath.Join(w, ".config")) {
		t.Errorf("the linked .config is not pinned: %+v", pl.init.Mounts)
	}
	for _, p := range []string{filepath.Join(conf, "fish"), filepath.Join(conf, "autostart")} {
		if !has(opBindRO, p) {
			t.Errorf("%s is not held where the link leads: %+v", p, pl.init.Mounts)
		}
	}
	for _, op := range pl.init.Mounts {
		if op.Kind != opHoldLink && strings.HasPrefix(op.Dst, filepath.Join(w, ".config")+"/") {
			t.Errorf("%s %s goes through the link", op.Kind, op.Dst)
		}
	}
}

// TestBuildPlanHardLinkedProtectedFile: a protected file with another name
// in the writable root is held by both names; where the other names
// cannot all be looked for, the plan is refused. A protected file with one
// name costs no walk (the control).
func TestBuildPlanHardLinkedProtectedFile(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "work")
	if err := os.MkdirAll(filepath.Join(w, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".envrc", ".mise.toml"} {
		if err := os.WriteFile(filepath.Join(w, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(w, "deep", "er", "copy")
	if err := os.Link(filepath.Join(w, ".envrc"), other); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w}, Protected: []string{".envrc", ".mise.toml"}}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	for _, p := range []string{filepath.Join(w, ".envrc"), other, filepath.Join(w, ".mise.toml")} {
		if op, _, ok := opAt(pl, p); !ok || op.Kind != opBindRO {
			t.Errorf("%s is not bound read-only: %+v", p, op)
		}
	}

	defer func(n int) { maxLinkWalk = n }(maxLinkWalk)
	maxLinkWalk = 3
	if pl, err := buildPlan(spec, false); err == nil || !strings.Contains(err.Error(), "has other names") {
		if pl != nil {
			pl.removePlaceholders()
		}
		t.Errorf("a walk past its bound: %v; want the plan refused", err)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	pl, err = buildPlan(spec, false)
	if err != nil {
		t.Fatalf("one name each, no walk: %v", err)
	}
	pl.removePlaceholders()
}

// TestBuildPlanHardLinkInsideProtectedDir: a file inside a directory kept
// read-only whole (.husky) with another name in the writable root is held
// by that name too; a git directory's hard-linked objects (a local clone's)
// cost no walk; a protected directory past its bound refuses the plan.
func TestBuildPlanHardLinkInsideProtectedDir(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "work")
	for _, d := range []string{".husky", ".git/objects/ab", "cache"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(w, ".husky", "pre-commit")
	obj := filepath.Join(w, ".git", "objects", "ab", "cdef")
	for _, f := range []string{hook, obj} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(w, "cache", "hook")
	if err := os.Link(hook, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(obj, filepath.Join(w, "cache", "obj")); err != nil {
		t.Fatal(err)
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w}, Protected: []string{".husky", ".git"}}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	if op, _, ok := opAt(pl, other); !ok || op.Kind != opBindRO {
		t.Errorf("the hook's other name %s is not bound read-only: %+v", other, op)
	}
	if _, _, ok := opAt(pl, filepath.Join(w, "cache", "obj")); ok {
		t.Errorf("a git object's other name was bound: the git directory was walked")
	}

	defer func(n int) { maxInsideWalk = n }(maxInsideWalk)
	maxInsideWalk = 1
	if pl, err := buildPlan(spec, false); err == nil || !strings.Contains(err.Error(), "cannot look through") {
		if pl != nil {
			pl.removePlaceholders()
		}
		t.Errorf("a protected directory past its bound: %v; want the plan refused", err)
	}
}
