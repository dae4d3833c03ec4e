//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRedteam20ReducedTierHostMetadata changes the metadata of host files
// outside every writable root from the reduced tier: their mode (chmod),
// times (utimensat), extended attributes (setxattr) and inode flags
// (FS_IOC_SETFLAGS on a read-only descriptor, file_setattr(2) by path).
// Landlock has no right for any of these (it judges opens, creations,
// removals, renames and truncation, not inode attribute changes), the
// reduced tier has no read-only mounts to stand in for it, and the kernel
// checks only that the caller owns the file. So a program that may not
// write one byte of ~/.bashrc can make it mode 0666 (any other local user
// then writes the next shell of the developer), make the denied
// ~/.ssh/id_ed25519 mode 0644 and ~/.ssh 0755 (any local user reads the
// private key the sandbox itself may not read), chmod 000 the user's files
// (denial of service), back-date files to fool make and backup tools, or
// mark them nodump. TestReducedTier checks only writes through open.
//
// Severity: medium (a read-only promise broken on every file the user
// owns; with other local users it leaks the denied credentials to them).
// Affected: unprivileged callers under the warn fallback on machines
// without usable user namespaces (the reduced tier refuses root).
//
// Fixed: in the reduced tier seccomp refuses (EPERM) a chmod whose mode
// sets the set-ID bits or the world-write bit, every chown, setting or
// removing an extended attribute, file_setattr and the FS_IOC_SETFLAGS and
// FS_IOC_FSSETXATTR ioctls (chmodRules, hostInodeCalls, hostInodeIoctls in
// seccomp.go). Other modes (0755, 0775, but also 000 or 0644 on a host
// file) and timestamps stay allowed, as npm, pip, tar, cp -p and make need
// them in the writable roots: the README lists them among the reduced
// tier's limits, and the controls check them (chmod +x in the writable
// root, utime of a host file).
func TestRedteam20ReducedTierHostMetadata(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	w := newDir(t, 0o755)
	outside := newDir(t, 0o755)
	rc := filepath.Join(outside, "bashrc")
	stamp := filepath.Join(outside, "stamp")
	xattr := filepath.Join(outside, "xattr")
	flags := filepath.Join(outside, "flags")
	fattr := filepath.Join(outside, "fattr")
	for _, p := range []string{rc, stamp, xattr, flags, fattr} {
		writeFile(t, p, "# the user's file\n", 0o644)
	}
	// The fake home's SSH key: denied outright. Its mode is put back after.
	key := filepath.Join(fakeHome, ".ssh", "id_ed25519")
	t.Cleanup(func() { _ = os.Chmod(key, 0o600) })
	// Whether user extended attributes work on this filesystem at all.
	xattrOK := unix.Setxattr(rc, "user.agentbox-probe", []byte("x"), 0) == nil
	_ = unix.Removexattr(rc, "user.agentbox-probe")

	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		control("chmod_x_in_root", "chmod:755|"+w+"/ok", ""),
		control("chmod_gw_in_root", "chmod:775|"+w+"/ok", ""),
		control("stat_outside", "statmode:"+rc, "mode 0644"),
		// Timestamps stay the user's programs' to set (a limit the README
		// lists): tar, cp -p and make need them.
		control("utimes_outside", "utimes:"+stamp, ""),
		attack("write_outside", "write:"+rc), // the promise: not writable
		attack("chmod_outside", "chmod:666|"+rc),
		attack("chmod_setuid_outside", "chmod:4755|"+rc),
		attack("chmod_denied_key_world", "chmod:606|"+key),
		attack("chmod_denied_key_setgid", "chmod:2600|"+key),
		attack("chown_outside", fmt.Sprintf("chown:%d:%d|%s", os.Getuid(), os.Getgid(), rc)),
		attack("setflags_outside", "setflags:"+flags),
		attack("file_setattr_outside", "filesetattr:"+fattr),
	}
	if isAMD64 {
		ps = append(ps, attack("chmod_legacy_outside", "chmodlegacy:666|"+rc))
	}
	if xattrOK {
		ps = append(ps, attack("setxattr_outside", "setxattr:"+xattr+"|user.planted|x"))
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

	// What the host sees afterwards.
	mode := func(p string) os.FileMode {
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	if m := mode(rc); m != 0o644 {
		t.Errorf("ESCAPE: the host's %s is mode %#o after the run, was 0644", rc, m)
	}
	if m := mode(key); m != 0o600 {
		t.Errorf("ESCAPE: the denied SSH key %s is mode %#o after the run, was 0600", key, m)
	}
	if xattrOK {
		if _, err := unix.Getxattr(xattr, "user.planted", nil); err == nil {
			t.Errorf("ESCAPE: the host's %s carries a planted extended attribute", xattr)
		}
	}
	for _, p := range []string{flags, fattr} {
		if f, err := os.Open(p); err == nil {
			var fl int32
			_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.FS_IOC_GETFLAGS, uintptr(unsafe.Pointer(&fl)))
			f.Close()
			if e == 0 && fl&0x40 != 0 {
				t.Errorf("ESCAPE: the host's %s is marked nodump (flags %#x)", p, fl)
			}
		}
	}
	if strings.Contains(res.Stdout, homeSSHKey) {
		t.Errorf("the key itself leaked")
	}
}
