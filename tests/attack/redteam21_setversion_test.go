//go:build linux

package attack_test

import (
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRedteam21ReducedTierChattrVersion changes the inode of a host file
// outside every writable root from the reduced tier with `chattr -v`: the
// FS_IOC_SETVERSION ioctl (and ext4's EXT4_IOC_SETVERSION_OLD,
// _IOW('f', 4, long)) sets the file's generation number through a
// descriptor open for reading only, checked by the kernel only against
// the file's owner (ext4_ioctl_setversion: inode_owner_or_capable), and
// by Landlock not at all. The reduced tier's seccomp filter refuses only
// FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR among the inode ioctls
// (hostInodeIoctls, sandbox/linux/seccomp.go:102), while the README says
// it refuses "the inode-flag ioctls (chattr)" and that a program there may
// change only a host file's mode (not set-ID, not o+w) and timestamps.
// The generation number is part of every NFS file handle and of
// name_to_handle_at's: changing it on the user's files makes an NFS
// client's open handles stale (ESTALE) and breaks tools keyed by handles.
// It works on ext4 without metadata_csum (this machine's root filesystem).
//
// Severity: low (an inode change outside the writable roots the promise
// excludes; no content or permission change). Affected: unprivileged
// callers under the warn fallback on machines without usable user
// namespaces (the reduced tier refuses root).
//
// Suggested fix: add FS_IOC_SETVERSION (0x40087602) and
// EXT4_IOC_SETVERSION_OLD (0x40086604) to hostInodeIoctls, or better,
// allow in the reduced tier only a list of ioctls (terminal, FIONREAD,
// FIOCLEX, the GET ones) rather than deny named ones.
//
// Fixed: both numbers join hostInodeIoctls (sandbox/linux/seccomp.go),
// refused in the reduced tier.
func TestRedteam21ReducedTierChattrVersion(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	w := newDir(t, 0o755)
	outside := newDir(t, 0o755)
	rc := filepath.Join(outside, "bashrc")
	writeFile(t, rc, "# the user's file\n", 0o644)
	generation := func() int64 {
		fd, err := unix.Open(rc, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		var v int64
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), 0x80087601, uintptr(unsafe.Pointer(&v))); e != 0 {
			t.Skipf("FS_IOC_GETVERSION: %v (filesystem without generation numbers)", e)
		}
		return v
	}
	before := generation()
	if before == 0x5eed {
		t.Fatal("the file already has the probe's generation")
	}
	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		control("getversion_outside", "getversion:"+rc, "generation"),
		attack("write_outside", "write:"+rc),
		attack("setversion_outside", "setversion:"+rc),
	}
	refused, res := runInChild(t, "no-capabilities", false, w, ps)
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
	checkProbes(t, o, ps)
	if after := generation(); after != before {
		t.Errorf("ESCAPE: the host's %s has generation %#x after the run, was %#x", rc, after, before)
	}
}
