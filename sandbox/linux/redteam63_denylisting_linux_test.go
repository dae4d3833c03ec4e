//go:build linux

package linux

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// TestRedteam63DenyPathMissingFromListing: the planner now answers "this
// deny path is missing" from a snapshot listing of its directory, read
// once four deny paths in that directory were asked about
// (plan_protect.go: planner.lstat, internal/dirlist: Cache.Missing). A
// listing and a lookup are not the same question: on a file system whose
// lookups are case-insensitive (ext4 or tmpfs casefold, vfat/exFAT,
// ciopfs and other FUSE file systems) the name the user denied, in
// another case than the one on disk, is found by every lookup but is
// absent from the listing. The planner then takes the denied file for
// missing in a read-only area ("Nothing can create it here; Landlock
// denies it") and mounts no mask. Landlock does not deny it either: its
// walk of the directory (landlock.go: llBuilder.cover) meets the file
// under its on-disk name, which is not on the deny list, and grants its
// inode read, which the denied name reaches. So the command reads the
// deny path, by the very name the user denied.
//
// Before the change (os.Lstat in mask) the file was found and masked;
// the same sandbox with the deny path alone in its directory (fewer than
// four lookups: no listing) still masks it, which the test checks as its
// differential control.
//
// The test mounts a small read-only FUSE file system (served by the test
// itself, needs root for the mount) whose lookups ignore case, like a
// casefolded directory: it lists "secret" and "allowed", and a lookup of
// "SECRET" finds "secret". Control: the sandbox reads "allowed".
//
// Severity: high in effect (a denied file's contents read by the command)
// but limited to case-insensitive file systems and a deny path spelled in
// another case than the file (or a file system whose listing omits names
// its lookups find).
// Fix: do not answer "missing" from a listing (keep the lstat for the
// answer "missing", or confirm a listed-missing name with one lstat
// before dropping its mask).
//
// Found by red-team round 63. Fixed: internal/dirlist lists only
// directories whose lookups find exactly the names listed (exactNames:
// ext4 and tmpfs directories without casefold, btrfs); on any other file
// system, FUSE among them, each deny path is looked up as before.
func TestRedteam63DenyPathMissingFromListing(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting the test's FUSE file system needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	base := hostTempDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mnt, marks := filepath.Join(base, "fs"), filepath.Join(base, "marks")
	for _, d := range []string{mnt, marks} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(marks, 0o777); err != nil {
		t.Fatal(err)
	}
	const secretText, controlText = "rt63a-SECRET-8c1f\n", "rt63a-control-ok\n"
	rt63aMountCIFS(t, mnt, map[string]string{"secret": secretText, "allowed": controlText})

	// Premise, on the host: the denied name is found by a lookup, with the
	// file's contents, and is absent from the directory's listing.
	denied := filepath.Join(mnt, "SECRET")
	if b, err := os.ReadFile(denied); err != nil || string(b) != secretText {
		t.Fatalf("premise: %s reads %q, %v; want the secret", denied, b, err)
	}
	names, err := os.ReadDir(mnt)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n.Name() == "SECRET" {
			t.Fatal("premise: the listing names SECRET")
		}
	}

	r := &Runtime{}
	defer r.Close()
	run := func(deny []string, tag string) (leak, control string) {
		t.Helper()
		spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{
			Writable: []string{marks},
			DenyRead: deny,
		}}
		script := fmt.Sprintf("cat %s > %s/%s.control 2>&1; cat %s > %s/%s.leak 2>&1; exit 0",
			filepath.Join(mnt, "allowed"), marks, tag, denied, marks, tag)
		proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", script}})
		if err != nil {
			t.Fatalf("%s: start: %v", tag, err)
		}
		defer proc.Close()
		if st, err := proc.Wait(); err != nil || st.Code != 0 {
			t.Fatalf("%s: wait: %+v, %v", tag, st, err)
		}
		l, _ := os.ReadFile(filepath.Join(marks, tag+".leak"))
		c, _ := os.ReadFile(filepath.Join(marks, tag+".control"))
		return string(l), string(c)
	}

	// Differential control: the deny path alone in its directory is looked
	// up (no listing), found, and masked.
	leak, control := run([]string{denied}, "alone")
	t.Logf("deny path alone: the command read %q", leak)
	if control != controlText {
		t.Fatalf("control: the sandbox read %q from %s/allowed, want %q (the FUSE file system is not shown?)", control, mnt, controlText)
	}
	if strings.Contains(leak, "rt63a-SECRET") {
		t.Fatalf("the deny path was readable even without a listing (another bug): %q", leak)
	}

	// The attack: three more deny paths in the same directory (missing, as
	// most of the default set's are) make the planner list it first.
	leak, control = run([]string{filepath.Join(mnt, "a1"), filepath.Join(mnt, "a2"), filepath.Join(mnt, "a3"), denied}, "listed")
	if control != controlText {
		t.Fatalf("control: the sandbox read %q from %s/allowed, want %q", control, mnt, controlText)
	}
	if strings.Contains(leak, "rt63a-SECRET") {
		t.Errorf("the sandboxed command read the deny path %s (%q): the planner's listing took it for missing and mounted no mask", denied, leak)
	}
}

// rt63aMountCIFS mounts at dir a read-only FUSE file system served by this
// process: one directory holding files, whose lookups ignore case (as a
// casefolded directory's do) while its listing gives each name as stored.
func rt63aMountCIFS(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("open /dev/fuse: %v", err)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd)
	if err := unix.Mount("rt63a", dir, "fuse.rt63a", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, opts); err != nil {
		unix.Close(fd)
		t.Skipf("mount fuse: %v", err)
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rt63aServeFUSE(fd, names, files)
	}()
	var st unix.Stat_t
	statErr := unix.Stat(dir, &st)
	t.Cleanup(func() {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
		// Abort the connection (a copy of the mount may live on in a
		// namespace not yet gone) so that the server's read returns.
		if statErr == nil {
			_ = os.WriteFile(fmt.Sprintf("/sys/fs/fuse/connections/%d/abort", unix.Minor(st.Dev)), []byte("1"), 0o200)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Log("the FUSE server did not stop")
		}
		_ = unix.Close(fd)
	})
}

// FUSE opcodes and sizes used by rt63aServeFUSE.
const (
	rt63aLookup      = 1
	rt63aForget      = 2
	rt63aGetattr     = 3
	rt63aOpen        = 14
	rt63aRead        = 15
	rt63aStatfs      = 17
	rt63aRelease     = 18
	rt63aFlush       = 25
	rt63aInit        = 26
	rt63aOpendir     = 27
	rt63aReaddir     = 28
	rt63aReleasedir  = 29
	rt63aAccess      = 34
	rt63aInterrupt   = 36
	rt63aBatchForget = 42
)

func rt63aServeFUSE(fd int, names []string, files map[string]string) {
	le := binary.LittleEndian
	buf := make([]byte, 1<<20+4096)
	attr := func(node uint64) []byte {
		a := make([]byte, 88)
		le.PutUint64(a[0:], node)
		mode, nlink, size := uint32(unix.S_IFDIR|0o755), uint32(2), uint64(0)
		if node > 1 {
			mode, nlink, size = unix.S_IFREG|0o444, 1, uint64(len(files[names[node-2]]))
		}
		le.PutUint64(a[8:], size)
		le.PutUint64(a[16:], (size+511)/512)
		le.PutUint32(a[60:], mode)
		le.PutUint32(a[64:], nlink)
		le.PutUint32(a[80:], 4096) // blksize
		return a
	}
	reply := func(unique uint64, errno int32, body []byte) {
		out := make([]byte, 16+len(body))
		le.PutUint32(out[0:], uint32(len(out)))
		le.PutUint32(out[4:], uint32(errno))
		le.PutUint64(out[8:], unique)
		copy(out[16:], body)
		_, _ = unix.Write(fd, out)
	}
	for {
		n, err := unix.Read(fd, buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.ENOENT) {
				continue
			}
			return // ENODEV once unmounted, EBADF once closed
		}
		if n < 40 {
			continue
		}
		req := buf[:n]
		op, unique, node := le.Uint32(req[4:]), le.Uint64(req[8:]), le.Uint64(req[16:])
		in := req[40:]
		switch op {
		case rt63aForget, rt63aBatchForget, rt63aInterrupt:
			// no reply
		case rt63aInit:
			out := make([]byte, 64)
			le.PutUint32(out[0:], 7)
			le.PutUint32(out[4:], 31)
			le.PutUint32(out[8:], le.Uint32(in[8:]))
			le.PutUint16(out[16:], 16)
			le.PutUint16(out[18:], 12)
			le.PutUint32(out[20:], 65536)
			le.PutUint32(out[24:], 1)
			reply(unique, 0, out)
		case rt63aLookup:
			name := string(in)
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			found := uint64(0)
			for i, f := range names {
				if node == 1 && strings.EqualFold(f, name) {
					found = uint64(i + 2)
				}
			}
			if found == 0 {
				reply(unique, -int32(unix.ENOENT), nil)
				continue
			}
			out := make([]byte, 40)
			le.PutUint64(out[0:], found)
			reply(unique, 0, append(out, attr(found)...))
		case rt63aGetattr:
			out := make([]byte, 16)
			reply(unique, 0, append(out, attr(node)...))
		case rt63aOpen, rt63aOpendir:
			reply(unique, 0, make([]byte, 16))
		case rt63aRead:
			off, size := le.Uint64(in[8:]), uint64(le.Uint32(in[16:]))
			data := ""
			if node > 1 {
				data = files[names[node-2]]
			}
			if off > uint64(len(data)) {
				off = uint64(len(data))
			}
			end := min(off+size, uint64(len(data)))
			reply(unique, 0, []byte(data[off:end]))
		case rt63aReaddir:
			off := le.Uint64(in[8:])
			ents := append([]string{".", ".."}, names...)
			var out []byte
			for i := off; i < uint64(len(ents)); i++ {
				nm := ents[i]
				ino, typ := uint64(1), uint32(unix.DT_DIR)
				if i >= 2 {
					ino, typ = i, unix.DT_REG
				}
				e := make([]byte, 24+(len(nm)+7)/8*8)
				le.PutUint64(e[0:], ino)
				le.PutUint64(e[8:], i+1)
				le.PutUint32(e[16:], uint32(len(nm)))
				le.PutUint32(e[20:], typ)
				copy(e[24:], nm)
				out = append(out, e...)
			}
			reply(unique, 0, out)
		case rt63aStatfs:
			out := make([]byte, 80)
			le.PutUint32(out[40:], 4096)
			le.PutUint32(out[44:], 255)
			reply(unique, 0, out)
		case rt63aRelease, rt63aReleasedir, rt63aFlush, rt63aAccess:
			reply(unique, 0, nil)
		default:
			reply(unique, -int32(unix.ENOSYS), nil)
		}
	}
}
