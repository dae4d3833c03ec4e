//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIdmappedTreeRefusesLinks: a root caller's writable root is cloned
// from a descriptor opened without following links, so a directory
// swapped for a link after the plan's checks is refused, not followed to
// the link's target.
func TestIdmappedTreeRefusesLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made for root callers only")
	}
	dir := hostTempDir(t)
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{filepath.Join(dir, "link"), filepath.Join(dir, "parent")} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(target, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	var cache idmapCache
	defer cache.close()
	nsFor := func(k idmapKey) (int, error) {
		fd, err := cache.userns(k)
		if err == nil {
			t.Cleanup(func() { unix.Close(fd) })
		}
		return fd, err
	}
	f, err := idmappedTree(target, false, nsFor)
	if err != nil {
		t.Fatalf("control: the directory itself: %v", err)
	}
	f.Close()
	for _, p := range []string{filepath.Join(dir, "link"), filepath.Join(dir, "parent", "sub")} {
		if f, err := idmappedTree(p, false, nsFor); err == nil {
			f.Close()
			t.Errorf("%s: cloned through a symbolic link", p)
		}
	}
}

// fakeInit is an initProc at pid whose signal answers err.
type fakeInit struct {
	id  int
	err error
}

func (f fakeInit) pid() int                          { return f.id }
func (f fakeInit) signal(syscall.Signal) error       { return f.err }
func (f fakeInit) wait() (syscall.WaitStatus, error) { return 0, f.err }

// TestOpenUserNS: a user namespace opened by pid is kept only when its
// init is still alive after the open, so the pid was not another
// process's by then.
func TestOpenUserNS(t *testing.T) {
	var self unix.Stat_t
	if err := unix.Stat("/proc/self/ns/user", &self); err != nil {
		t.Skip(err)
	}
	fd, err := openUserNS(fakeInit{id: os.Getpid()})
	if err != nil {
		t.Fatalf("a live init: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Ino != self.Ino {
		t.Errorf("opened namespace %d (%v), want this process's %d", st.Ino, err, self.Ino)
	}
	unix.Close(fd)
	if fd, err := openUserNS(fakeInit{id: os.Getpid(), err: os.ErrProcessDone}); err == nil {
		unix.Close(fd)
		t.Error("an init gone (its pid maybe another process's) gave a namespace")
	}
}

// TestIdmapCacheClose: userns hands out descriptors the caller closes, of
// one namespace per owner while the cache is open; close closes the
// namespaces kept (Runtime.Close) and a namespace made after it is not
// kept, so nothing stays open once the caller closed its own.
func TestIdmapCacheClose(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made for root callers only")
	}
	k := idmapKey{uid: 1234, gid: 1234}
	for _, tc := range []struct {
		name       string
		closeFirst bool
		wantKept   int
	}{
		{"open cache keeps one namespace per owner", false, 1},
		{"closed cache keeps none", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c idmapCache
			if tc.closeFirst {
				c.close()
			}
			var inos []uint64
			for range 2 {
				fd, err := c.userns(k)
				if err != nil {
					t.Fatal(err)
				}
				var st unix.Stat_t
				if err := unix.Fstat(fd, &st); err != nil {
					t.Fatal(err)
				}
				inos = append(inos, st.Ino)
				unix.Close(fd) // the caller's: the cache's stays usable
			}
			if same := inos[0] == inos[1]; same != (tc.wantKept == 1) {
				t.Errorf("namespaces %v: shared %v, want %v", inos, same, tc.wantKept == 1)
			}
			kept := make([]int, 0, len(c.fds))
			for _, fd := range c.fds {
				kept = append(kept, fd)
			}
			if len(kept) != tc.wantKept {
				t.Fatalf("cache keeps %d descriptors, want %d", len(kept), tc.wantKept)
			}
			c.close()
			for _, fd := range kept {
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
					t.Errorf("descriptor %d still open after close", fd)
				}
			}
		})
	}
}
