//go:build linux

package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rt61cBtrfsMount makes and mounts a btrfs image in base (root only) and
// returns the mount point, searchable by everyone.
func rt61cBtrfsMount(t *testing.T, base string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a btrfs image (agentbox then runs as nobody)")
	}
	for _, p := range []string{"mkfs.btrfs", "btrfs", "mount", "truncate"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s (package btrfs-progs)", p)
		}
	}
	img := filepath.Join(base, "fs.img")
	mnt := filepath.Join(base, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("truncate", "-s", "128M", img).CombinedOutput(); err != nil {
		t.Skipf("truncate: %v %s", err, out)
	}
	if out, err := exec.Command("mkfs.btrfs", "-q", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.btrfs: %v %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("mount -o loop (btrfs): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	if err := os.Chmod(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	return mnt
}

// TestRedteam61ReducedTierBtrfsSnapshotOutsideRoots: in the reduced tier
// (no user namespaces, warn fallback) on btrfs, a sandboxed command writes
// a directory tree of its choosing outside its writable roots: it makes a
// subvolume in its writable root, fills it, and snapshots it into a host
// directory it may only read.
//
//	btrfs subvolume create $W/sub; echo PAYLOAD > $W/sub/payload
//	btrfs subvolume snapshot $W/sub $OUTSIDE/planted
//
// Why it works: BTRFS_IOC_SNAP_CREATE_V2 (and BTRFS_IOC_SUBVOL_CREATE) is an
// ioctl on a descriptor of the destination directory opened for reading
// only; btrfs_mksubvol links the new subvolume into it after checking only
// the directory's mode bits (btrfs_may_create: inode_permission
// MAY_WRITE|MAY_EXEC) and that its mount is writable
// (mnt_want_write_file), and the snapshot's source only that the caller
// owns it. No LSM path hook (security_path_mkdir) runs, so Landlock, which
// confines the reduced tier's writes, never sees it; the full tier's
// read-only bind mounts answer EROFS, but the reduced tier has none, and
// seccomp's ioctlRule (sandbox/linux/seccomp.go) refuses in the reduced
// tier only the inode-flag, generation and owner ioctls (hostInodeIoctls,
// ownerIoctls) and fscrypt's key ioctls. The planted tree can hold
// anything (a ~/.config/autostart entry, a project's build script
// directory) and needs no directory of the same name to exist.
//
// The test (root only: it mounts a btrfs image; the reduced tier refuses
// root callers, so agentbox runs as nobody) checks the controls: the
// sandbox writes in its writable root and makes a subvolume there; a
// plain mkdir and a file write outside are refused (Landlock holds for
// ordinary calls). The run is the reduced tier.
//
// Severity: high (a write the policy denies: files of the command's
// choosing outside the writable roots). Found by red-team round 61.
// Fixed: seccomp refuses btrfs's subvolume ioctls in every tier
// (btrfsSubvolIoctls); the subvolume the command fills is the user's,
// made before the run.
func TestRedteam61ReducedTierBtrfsSnapshotOutsideRoots(t *testing.T) {
	base := hostDir(t)
	mnt := rt61cBtrfsMount(t, base)
	const uid = 65534
	mkOwned := func(p string) string {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	outside := mkOwned(filepath.Join(mnt, "outside")) // the user's, outside the writable root
	work := mkOwned(filepath.Join(mnt, "work"))       // the writable root
	home := mkOwned(filepath.Join(base, "home"))

	// Premise: as nobody on the host, btrfs-progs makes a subvolume of
	// its own and snapshots it.
	pdir := mkOwned(filepath.Join(mnt, "premise"))
	pc := exec.Command("/bin/sh", "-c", `btrfs subvolume create "$1/sub" && btrfs subvolume snapshot "$1/sub" "$1/snap"`, "sh", pdir)
	pc.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if out, err := pc.CombinedOutput(); err != nil {
		t.Skipf("premise: an unprivileged user cannot make btrfs snapshots here: %v %s", err, out)
	}
	if st, err := os.Stat(filepath.Join(pdir, "snap")); err != nil || !st.IsDir() {
		t.Fatalf("premise: no snapshot: %v", err)
	}
	// A subvolume of the user's in the writable root (made before the
	// run: the sandbox may make none), which the command fills.
	pc = exec.Command("btrfs", "subvolume", "create", filepath.Join(work, "sub"))
	pc.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if out, err := pc.CombinedOutput(); err != nil {
		t.Fatalf("premise: %v %s", err, out)
	}

	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := strings.Join([]string{
		"W=" + q(work) + " O=" + q(outside),
		`echo ok > "$W/ok" && echo "R root written"`,
		`mkdir "$O/plain" 2>/dev/null && echo "R mkdir outside DONE" || echo "R mkdir outside refused"`,
		`echo x > "$O/file" 2>/dev/null && echo "R write outside DONE" || echo "R write outside refused"`,
		`echo PAYLOAD > "$W/sub/payload" && echo "R payload written"`,
		`btrfs subvolume create "$W/sub2" >/dev/null 2>&1 && echo "R subvolume made" || echo "R subvolume refused"`,
		`btrfs subvolume snapshot "$W/sub" "$O/planted" 2>&1 | sed 's/^/R snapshot: /'`,
	}, "\n")
	res := rt61cRunReduced(t, base, home, work, uid, script)

	// Controls.
	if b, err := os.ReadFile(filepath.Join(work, "ok")); err != nil || string(b) != "ok\n" {
		t.Fatalf("control: the sandbox did not write its writable root: %v %q", err, b)
	}
	if !strings.Contains(res.Stdout, "R payload written") {
		t.Fatalf("control: the sandbox could not fill a subvolume in its writable root: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "R subvolume refused") {
		t.Errorf("the sandbox made a btrfs subvolume (seccomp's btrfsSubvolIoctls let it through): %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "R mkdir outside refused") || !strings.Contains(res.Stdout, "R write outside refused") {
		t.Fatalf("premise: Landlock did not refuse plain writes outside the writable root: %q", res.Stdout)
	}

	// The attack.
	b, err := os.ReadFile(filepath.Join(outside, "planted", "payload"))
	t.Logf("outside/planted/payload on the host: %q %v", b, err)
	if err == nil && strings.Contains(string(b), "PAYLOAD") {
		t.Errorf("WRITE OUTSIDE THE WRITABLE ROOTS FROM THE REDUCED TIER: a btrfs snapshot planted %s with the command's "+
			"files, in a directory the sandbox may only read (%q)", filepath.Join(outside, "planted"), strings.TrimSpace(res.Stdout))
	}
}

// TestRedteam61ReducedTierBtrfsSnapshotReadsDenied: in the reduced tier on
// btrfs, where the user's home is a subvolume of the user's own (as
// systemd-homed's btrfs homes are), a sandboxed command reads a denied
// file: it snapshots the home into its writable root and reads the copy.
//
//	btrfs subvolume snapshot $HOME $W/copy; cat $W/copy/.ssh/id_ed25519
//
// Why it works: BTRFS_IOC_SNAP_CREATE_V2 copies the whole source
// subvolume, given as a descriptor opened for reading only (Landlock
// grants every directory's listing, READ_DIR, from /), into the
// destination directory, and asks only that the caller own the source
// (inode_owner_or_capable) and may write the destination by its mode
// bits. The copy lies in the writable root, which Landlock grants whole:
// the deny list's Landlock carve-out (sandbox/linux/landlock.go
// llBuilder.cover, plan_reduced.go buildReducedPlan) names the denied
// files by path, and the snapshot gives them new ones. seccomp's
// ioctlRule does not name the btrfs ioctls.
//
// Controls: the denied key is refused when read directly, a public file
// of the home reads, the writable root takes a file; the premise: the
// home is a subvolume the sandbox's user owns, and such a user may
// snapshot it (checked on the host first).
//
// Severity: high (a secret read: a file of the default deny list).
// Found by red-team round 61. Fixed: seccomp refuses btrfs's subvolume
// ioctls, snapshots among them, in every tier (btrfsSubvolIoctls).
func TestRedteam61ReducedTierBtrfsSnapshotReadsDenied(t *testing.T) {
	rt61cBtrfsSnapshotReadsDenied(t, false)
}

func rt61cBtrfsSnapshotReadsDenied(t *testing.T, full bool) {
	base := hostDir(t)
	mnt := rt61cBtrfsMount(t, base)
	const uid = 65534
	own := func(p string) {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(mnt, "home")
	if out, err := exec.Command("btrfs", "subvolume", "create", home).CombinedOutput(); err != nil {
		t.Skipf("btrfs subvolume create: %v %s", err, out)
	}
	own(home)
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := "RT61C-SSH-KEY-" + filepath.Base(base)
	ssh := filepath.Join(home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	own(ssh)
	key := filepath.Join(ssh, "id_ed25519")
	if err := os.WriteFile(key, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	own(key)
	profile := filepath.Join(home, ".profile")
	if err := os.WriteFile(profile, []byte("RT61C-PUBLIC\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own(profile)
	work := filepath.Join(mnt, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	own(work)

	// Premise: the user may snapshot the home subvolume it owns.
	pdir := filepath.Join(mnt, "premise")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	own(pdir)
	pc := exec.Command("btrfs", "subvolume", "snapshot", home, filepath.Join(pdir, "snap"))
	pc.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if out, err := pc.CombinedOutput(); err != nil {
		t.Skipf("premise: the user cannot snapshot its home subvolume here: %v %s", err, out)
	}

	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := strings.Join([]string{
		"W=" + q(work),
		`echo ok > "$W/ok" && echo "R root written"`,
		`echo "R public $(cat "$HOME/.profile" 2>&1)"`,
		`cat "$HOME/.ssh/id_ed25519" >/dev/null 2>&1 && echo "R direct READ" || echo "R direct refused"`,
		`btrfs subvolume snapshot "$HOME" "$W/copy" 2>&1 | sed 's/^/R snapshot: /'`,
		`echo "R copy $(cat "$W/copy/.ssh/id_ed25519" 2>&1)"`,
	}, "\n")
	res := rt61cRun(t, base, home, work, uid, script, full)

	if b, err := os.ReadFile(filepath.Join(work, "ok")); err != nil || string(b) != "ok\n" {
		t.Fatalf("control: the sandbox did not write its writable root: %v %q", err, b)
	}
	if !strings.Contains(res.Stdout, "R public RT61C-PUBLIC") {
		t.Fatalf("control: the sandbox could not read a public file of the home: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "R direct refused") {
		t.Fatalf("premise: the denied key was not refused when read directly: %q", res.Stdout)
	}
	if strings.Contains(res.Stdout, secret) || strings.Contains(res.Stderr, secret) {
		t.Errorf("DENIED FILE READ FROM THE SANDBOX (full tier %v): a btrfs snapshot of the home copied ~/.ssh/id_ed25519 into "+
			"the writable root, where the sandbox read it: %q", full, strings.TrimSpace(res.Stdout))
	}
}

// TestRedteam61FullTierBtrfsSnapshotReadsDenied is
// TestRedteam61ReducedTierBtrfsSnapshotReadsDenied in the full tier: the
// deny list's masks are mounts over ~/.ssh in the sandbox's mount
// namespace, and a snapshot copies the subvolume beneath them (the
// source's mount is not looked at, only its super block: the writable
// root on the same file system takes the copy). Severity: high (a secret
// read). Found by red-team round 61. Fixed: seccomp refuses btrfs's
// subvolume ioctls, snapshots among them, in every tier (btrfsSubvolIoctls).
func TestRedteam61FullTierBtrfsSnapshotReadsDenied(t *testing.T) {
	rt61cBtrfsSnapshotReadsDenied(t, true)
}
