//go:build linux

package attack_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// The content the attacker's write probes put in files.
const writeMarker = "written-by-sandbox"

// snapshot describes a host directory tree: names, types, modes, owners,
// sizes, times and content hashes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	return snapshotOf(t, root, false)
}

// snapshotOf is snapshot, without the times of directories if
// ignoreDirTimes (placeholders that agentbox creates and removes for a run
// change them).
func snapshotOf(t *testing.T, root string, ignoreDirTimes bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	// Entries that vanish during the walk (placeholders of sandboxes that
	// run beside the test, say) are left out, not errors.
	gone := func(err error) bool { return errors.Is(err, fs.ErrNotExist) }
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if gone(err) {
			return nil
		}
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); gone(err) {
			return nil
		} else if err != nil {
			return err
		}
		desc := fmt.Sprintf("mode=%o uid=%d gid=%d size=%d mtime=%d.%d", st.Mode, st.Uid, st.Gid, st.Size, st.Mtim.Sec, st.Mtim.Nsec)
		if ignoreDirTimes && d.IsDir() {
			desc = fmt.Sprintf("mode=%o uid=%d gid=%d", st.Mode, st.Uid, st.Gid)
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if gone(err) {
				return nil
			} else if err != nil {
				return err
			}
			desc += fmt.Sprintf(" sha256=%x", sha256.Sum256(b))
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			desc += " -> " + target
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, fmt.Sprintf("changed %s: %s => %s", k, v, w))
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "created "+k)
		}
	}
	return d
}

// TestWriteOutside writes outside the writable root every way there is
// (paths, symlinks planted before and during the run, rename in both
// directions, hard links, metadata changes, /proc/self/root), with a
// directory that file permissions would let the sandbox change; the
// controls write inside the root and in the private /tmp and /dev/shm,
// which the host must not see.
func TestWriteOutside(t *testing.T) {
	t.Parallel()
	out := newDir(t, 0o777)
	existing := filepath.Join(out, "existing.txt")
	writeFile(t, existing, "original", 0o666)
	giveToSandboxUser(t, out, existing)
	w := newDir(t, 0o755)
	writeFile(t, filepath.Join(w, "movable.txt"), "movable", 0o644)
	for link, target := range map[string]string{
		"link-existing": existing, "link-dangling": filepath.Join(out, "created-through-link.txt"), "link-dir": out,
	} {
		if err := os.Symlink(target, filepath.Join(w, link)); err != nil {
			t.Fatal(err)
		}
	}
	// A writable root inside a denied directory: deny wins.
	denied := newDir(t, 0o777)
	deniedRoot := filepath.Join(denied, "root")
	if err := os.Mkdir(deniedRoot, 0o777); err != nil {
		t.Fatal(err)
	}
	giveToSandboxUser(t, denied, deniedRoot)
	private := "agentbox-attack-" + filepath.Base(w)

	ps := []probe{
		control("write_in_root", "write:"+w+"/ok.txt", ""),
		control("mkdir_in_root", "mkdir:"+w+"/sub", ""),
		control("rename_in_root", "rename:"+w+"/movable.txt|"+w+"/sub/movable.txt", ""),
		control("private_tmp", "write:/tmp/"+private, ""),
		control("private_tmp_read_back", "read:/tmp/"+private, writeMarker),
		control("private_dev_shm", "write:/dev/shm/"+private, ""),
		attack("write_new", "write:"+out+"/new.txt"),
		attack("overwrite", "write:"+existing),
		attack("truncate", "truncate:"+existing),
		attack("unlink", "unlink:"+existing),
		attack("mkdir", "mkdir:"+out+"/newdir"),
		attack("mkfifo", "mkfifo:"+out+"/fifo"),
		attack("symlink", "symlink:/etc/passwd|"+out+"/sl"),
		attack("chmod", "chmod:777|"+existing),
		attack("chown", "chown:0:0|"+existing),
		attack("utimes", "utimes:"+existing),
		attack("setxattr", "setxattr:"+existing+"|user.agentbox|x"),
		attack("via_symlink", "write:"+w+"/link-existing"),
		attack("via_dangling_symlink", "write:"+w+"/link-dangling"),
		attack("via_dir_symlink", "write:"+w+"/link-dir/via-dir.txt"),
		control("plant_symlink", "symlink:"+out+"/planted.txt|"+w+"/planted", ""),
		attack("via_planted_symlink", "write:"+w+"/planted"),
		attack("rename_out", "rename:"+w+"/sub/movable.txt|"+out+"/moved.txt"),
		attack("rename_in", "rename:"+existing+"|"+w+"/stolen.txt"),
		attack("hardlink_out", "link:"+w+"/ok.txt|"+out+"/hl.txt"),
		attack("hardlink_in", "link:"+existing+"|"+w+"/hl-in.txt"),
		attack("proc_self_root", "write:/proc/self/root"+out+"/via-proc.txt"),
		attack("root_inside_denied_dir", "write:"+deniedRoot+"/f.txt"),
		attack("host_var_tmp", "write:/var/tmp/"+private),
	}
	before := snapshot(t, out)
	beforeDenied := snapshot(t, denied)
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w, deniedRoot), agentbox.WithDenyRead(denied))

	for _, d := range diffSnapshots(before, snapshot(t, out)) {
		t.Errorf("ESCAPE: the host directory outside the writable root was modified: %s", d)
	}
	for _, d := range diffSnapshots(beforeDenied, snapshot(t, denied)) {
		t.Errorf("ESCAPE: a writable root inside a denied directory was written: %s", d)
	}
	for _, p := range []string{"/tmp/" + private, "/dev/shm/" + private, "/var/tmp/" + private} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("ESCAPE: %s appeared on the host", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w, "ok.txt")); err != nil || string(b) != writeMarker {
		t.Errorf("control: the write inside the writable root is not on the host: %q, %v", b, err)
	}
}

// TestSetuid tries to leave a set-user-ID (or set-group-ID, or
// file-capability) program in the writable root for a host user to run
// later, by every system call that sets mode bits; chmod 755 and creating
// a plain executable keep working.
func TestSetuid(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	for _, f := range []string{"plain", "plain2"} {
		writeFile(t, filepath.Join(w, f), "#!/bin/sh\necho hi\n", 0o644)
	}
	ps := []probe{
		control("chmod_755", "chmod:755|"+w+"/plain2", ""),
		control("creat_0755", "creat:755|"+w+"/normal-exec", ""),
		attack("creat_04755", "creat:4755|"+w+"/suid-new"),
		attack("creat_02755", "creat:2755|"+w+"/sgid-new"),
		attack("open_legacy_04755", "openlegacy:4755|"+w+"/suid-legacy"),
		attack("creat_legacy_04755", "creatlegacy:4755|"+w+"/suid-creat"),
		attack("chmod_u+s", "chmod:4755|"+w+"/plain"),
		attack("chmod_g+s", "chmod:2755|"+w+"/plain"),
		attack("chmod_legacy_u+s", "chmodlegacy:4755|"+w+"/plain"),
		attack("chmod_dir_g+s", "chmod:2755|"+w),
		attack("mknod_suid", "mknodsuid:"+w+"/suid-mknod"),
		attack("mknod_char_device", "mknodchr:"+w+"/null-dev"),
		attack("setcap", "setcap:"+w+"/plain2"),
		attack("chown_other", "chown:12345:12345|"+w+"/plain2"),
		attack("shell_chmod_u+s", "exec:/bin/chmod|u+s|"+w+"/plain"),
		attack("shell_install_4755", "exec:/usr/bin/install|-m|4755|/bin/true|"+w+"/installed"),
	}
	if _, err := os.Stat("/usr/bin/passwd"); err == nil {
		ps = append(ps, attack("hardlink_setuid_binary", "link:/usr/bin/passwd|"+w+"/passwd"))
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))

	err := filepath.WalkDir(w, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
			t.Errorf("ESCAPE: %s has mode %o on the host", p, st.Mode&0o7777)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFCHR || st.Mode&unix.S_IFMT == unix.S_IFBLK {
			t.Errorf("ESCAPE: device node %s created on the host", p)
		}
		if _, err := unix.Lgetxattr(p, "security.capability", make([]byte, 64)); err == nil {
			t.Errorf("ESCAPE: %s carries file capabilities on the host", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(w, "plain2")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("control: chmod 755 did not reach the host: %v %v", fi.Mode(), err)
	}
}

// TestMountsAndNamespaces tries to remount, unmount a mask, mount over a
// path, change root, and create or enter namespaces, through the system
// calls and through the usual commands (unshare, mount).
func TestMountsAndNamespaces(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t)
	w := newDir(t, 0o755)
	ps := []probe{
		control("fork_exec", "exec:/bin/true", "exit 0"),
		attack("remount_rw_root", "mount:remount-rw-root"),
		attack("remount_rw_root_fs", "mount:remount-rw-root-fs"),
		attack("mount_tmpfs", "mount:tmpfs|"+w),
		attack("bind_mount", "mount:bind|"+f.secretFile+"|"+w+"/ok.txt"),
		attack("umount_mask", "umount:"+f.secretFile),
		attack("umount_dir_mask", "umount:"+f.secretDir),
		attack("read_after_umount", "read:"+f.secretFile),
		attack("umount_root", "umount:/"),
		attack("pivot_root", "pivotroot:"+w),
		attack("chroot", "chroot:"+w),
		attack("open_tree", "opentree:/"),
		attack("fsopen", "fsopen"),
		attack("mount_setattr_rw", "setattr:/"),
		attack("unshare_user", "unshare:user", "EPERM"),
		attack("unshare_mnt", "unshare:mnt", "EPERM"),
		attack("unshare_net", "unshare:net", "EPERM"),
		attack("unshare_pid", "unshare:pid", "EPERM"),
		attack("unshare_time", "unshare:time", "EPERM"),
		attack("clone_newuser", "clonens:user"),
		attack("clone_newns", "clonens:mnt"),
		attack("clone_newnet", "clonens:net"),
		attack("clone_newpid", "clonens:pid"),
		attack("clone3", "clone3"),
		attack("setns_user", "setns:user"),
		attack("setns_mnt", "setns:mnt"),
		attack("unshare_cmd_user", "exec:/usr/bin/unshare|-U|-r|/bin/true"),
		attack("unshare_cmd_mnt", "exec:/usr/bin/unshare|-m|/bin/true"),
		attack("mount_cmd_remount", "exec:/bin/mount|-o|remount,rw|/"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w), agentbox.WithDenyRead(f.secretFile, f.secretDir))
	if b, err := os.ReadFile(f.secretFile); err != nil || string(b) != f.secret {
		t.Errorf("secret changed on the host: %q %v", b, err)
	}
}

// TestInheritedFDIsNotOurs guards the fixture: syscall.Open must not set
// O_CLOEXEC, or TestInheritedFD would prove nothing.
func TestInheritedFDIsNotOurs(t *testing.T) {
	t.Parallel()
	fd, err := syscall.Open("/etc/hostname", syscall.O_RDONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Close(fd)
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("syscall.Open set close-on-exec (%d, %v): the inherited-fd attack would not be one", flags, err)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
