//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestLandlockListedEntryNowALink: an entry cover's walk listed as a
// directory or a file, and found a symbolic link when its rule is added
// (a command of another sandbox that may write there swapped it, say to
// a link to ~/.ssh), gives no rule to the link's target. Before, the open
// followed the link and granted the target: in the reduced tier, where
// Landlock alone denies, the other sandbox's command read the secret
// through its own name. The same for a directory the walk looks into (one
// holding a denied path): its target's entries were granted under its
// names. Control: a real directory and file listed so are granted.
func TestLandlockListedEntryNowALink(t *testing.T) {
	abi := LandlockABI()
	if abi == 0 {
		t.Skip("no Landlock")
	}
	dir := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "secret", "key"), "secret")
	write(filepath.Join(dir, "secretfile"), "secret")
	write(filepath.Join(dir, "open", "f"), "ok")
	write(filepath.Join(dir, "openfile"), "ok")
	write(filepath.Join(dir, "secret2", "key2"), "secret")
	for link, target := range map[string]string{"linkdir": "secret", "linkfile": "secretfile", "cfg": "secret2"} {
		if err := os.Symlink(filepath.Join(dir, target), filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}

	handled := llHandledFS(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Offsetof(attr.Handled_access_net), 0)
	if errno != 0 {
		t.Fatalf("landlock_create_ruleset: %v", errno)
	}
	r := &landlockRuleset{fd: int(fd), abi: abi}
	defer r.close()
	// cfg was listed as a directory holding a denied path: the walk
	// looks inside it.
	b := &llBuilder{r: r, handled: handled, deny: []string{filepath.Join(dir, "cfg", "denied")}}
	for _, e := range []struct {
		name string
		t    entryType
	}{{"open", typeDir}, {"openfile", typeOther}, {"linkdir", typeDir}, {"linkfile", typeOther}} {
		if err := b.add(filepath.Join(dir, e.name), llRead, e.t); err != nil {
			t.Fatalf("add %s: %v", e.name, err)
		}
	}
	if err := b.cover(filepath.Join(dir, "cfg"), llRead, typeDir); err != nil {
		t.Fatalf("cover cfg: %v", err)
	}

	type read struct {
		path string
		err  error
	}
	reads := make(chan []read, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with its domain
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			reads <- []read{{"no_new_privs", err}}
			return
		}
		if err := r.restrictThread(); err != nil {
			reads <- []read{{"restrict", err}}
			return
		}
		var out []read
		for _, p := range []string{"open/f", "openfile", "linkdir/key", "secret/key", "linkfile", "secretfile", "cfg/key2", "secret2/key2"} {
			_, err := os.ReadFile(filepath.Join(dir, p))
			out = append(out, read{p, err})
		}
		reads <- out
	}()
	for _, rd := range <-reads {
		switch rd.path {
		case "no_new_privs", "restrict":
			t.Fatalf("%s: %v", rd.path, rd.err)
		case "open/f", "openfile":
			if rd.err != nil {
				t.Errorf("control: %s unreadable: %v", rd.path, rd.err)
			}
		default:
			if rd.err == nil {
				t.Errorf("%s readable: the rule for the link went to its target", rd.path)
			}
		}
	}
}
