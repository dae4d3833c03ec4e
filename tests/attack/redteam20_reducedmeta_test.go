//go:build linux

package attack_test

import (
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
	locked := filepath.Join(outside, "locked")
	for _, p := range []string{rc, stamp, xattr, flags, fattr, locked} {
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
		control("chmod_in_root", "chmod:600|"+w+"/ok", ""),
		control("stat_outside", "statmode:"+rc, "mode 0644"),
		attack("write_outside", "write:"+rc), // the promise: not writable
		attack("chmod_outside", "chmod:666|"+rc),
		attack("chmod_lockout", "chmod:0|"+locked),
		attack("chmod_denied_key", "chmod:644|"+key),
		attack("utimes_outside", "utimes:"+stamp),
		attack("setflags_outside", "setflags:"+flags),
		attack("file_setattr_outside", "filesetattr:"+fattr),
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
	if m := mode(locked); m != 0o644 {
		t.Errorf("ESCAPE: the host's %s is mode %#o after the run, was 0644", locked, m)
	}
	if m := mode(key); m != 0o600 {
		t.Errorf("ESCAPE: the denied SSH key %s is mode %#o after the run, was 0600", key, m)
	}
	if st, err := os.Stat(stamp); err == nil && st.ModTime().Unix() == 0 {
		t.Errorf("ESCAPE: the host's %s was back-dated to the epoch", stamp)
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
