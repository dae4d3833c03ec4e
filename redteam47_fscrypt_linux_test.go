//go:build linux

package agentbox_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// rt47aVictimEnv makes the test binary the victim: a host process of the
// user the sandbox runs as, unlocking an encrypted directory of its own.
const rt47aVictimEnv = "AGENTBOX_RT47A_FSCRYPT_VICTIM"

func init() {
	if mnt := os.Getenv(rt47aVictimEnv); mnt != "" {
		os.Exit(rt47aFscryptVictim(mnt))
	}
}

// rt47aFscryptVictim does what `fscrypt unlock` (and ChromeOS, Android,
// systemd-homed's fscrypt back end) does for a user: adds a v2 master key
// to the file system as that user (FS_IOC_ADD_ENCRYPTION_KEY, the user's
// claim), then encrypts mnt/private with it and writes a file there. It
// prints the key's identifier.
func rt47aFscryptVictim(mnt string) int {
	root, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	const rawSize = 64
	hdr := int(unsafe.Sizeof(unix.FscryptAddKeyArg{}))
	buf := make([]byte, hdr+rawSize)
	arg := (*unix.FscryptAddKeyArg)(unsafe.Pointer(&buf[0]))
	arg.Key_spec.Type = unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	arg.Raw_size = rawSize
	rand.Read(buf[hdr:])
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(root), unix.FS_IOC_ADD_ENCRYPTION_KEY, uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		fmt.Println("add key:", e)
		return 1
	}
	var id [16]byte
	copy(id[:], arg.Key_spec.U[:16])
	dir, err := unix.Open(filepath.Join(mnt, "private"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Println("open private:", err)
		return 1
	}
	pol := unix.FscryptPolicyV2{
		Version:                   unix.FSCRYPT_POLICY_V2,
		Contents_encryption_mode:  unix.FSCRYPT_MODE_AES_256_XTS,
		Filenames_encryption_mode: unix.FSCRYPT_MODE_AES_256_CTS,
		Flags:                     unix.FSCRYPT_POLICY_FLAGS_PAD_32,
		Master_key_identifier:     id,
	}
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(dir), unix.FS_IOC_SET_ENCRYPTION_POLICY, uintptr(unsafe.Pointer(&pol))); e != 0 {
		fmt.Println("set policy:", e)
		return 1
	}
	if err := os.WriteFile(filepath.Join(mnt, "private", "notes.txt"), []byte("rt47a victim's private notes\n"), 0o600); err != nil {
		fmt.Println("write:", err)
		return 1
	}
	fmt.Println("id=" + hex.EncodeToString(id[:]))
	return 0
}

// rt47aKeyStatus asks the file system at mnt about key id: its status
// (1 absent, 2 present, 3 incompletely removed) and how many users claim it.
func rt47aKeyStatus(t *testing.T, mnt, idHex string) (status, users uint32) {
	t.Helper()
	fd, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var arg unix.FscryptGetKeyStatusArg
	arg.Key_spec.Type = unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	id, _ := hex.DecodeString(idHex)
	copy(arg.Key_spec.U[:], id)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.FS_IOC_GET_ENCRYPTION_KEY_STATUS, uintptr(unsafe.Pointer(&arg))); e != 0 {
		t.Fatalf("key status: %v", e)
	}
	return arg.Status, arg.User_count
}

// TestRedteam47FscryptKeyRemovedFromSandbox: a sandboxed command locks the
// user's encrypted directories. fscrypt (ext4, f2fs, ubifs, ceph; `fscrypt
// unlock`, ChromeOS and Android homes, systemd-homed's fscrypt back end)
// keeps a v2 directory's master key in the file system, with a claim per
// user who added it, keyed by the global uid. FS_IOC_REMOVE_ENCRYPTION_KEY,
// an ioctl on any descriptor of the file system (a directory opened for
// reading), removes the caller's claim and, with no claim left, the key:
// the directory's names turn to ciphertext and its files cannot be opened
// until the user unlocks it again with the passphrase. The kernel checks
// only that the caller's uid holds a claim, and the sandbox runs as the
// caller's uid on the host (nobody for a root caller): the read-only bind
// mounts do not matter (no write access is asked), Landlock has no right
// for it, and seccomp's ioctlRule (sandbox/linux/seccomp.go) refuses only
// terminal ioctls in the full tier (hostInodeIoctls, the reduced tier's
// extra list, does not name it either). The sandbox changes the state of
// a host file system for the user's other programs: "a write the policy
// denies", and a denial of service of the user's session.
//
// The test (root only: it mounts an ext4 image with the encrypt feature)
// runs the victim as the host uid the sandbox runs as, adds the key,
// encrypts a directory and writes a file there; controls: the key is
// present with one claim, the file reads back, and the sandbox may read
// the file system (it is inside the read-only host tree). The attack: the
// sandboxed probe asks for the key's removal with the identifier (which is
// no secret: `fscrypt status`, and FS_IOC_GET_ENCRYPTION_POLICY on the
// directory, which the sandbox can open, give it to anyone).
//
// Severity: medium (a denial of service of the host: the user's
// encrypted directories are locked under the programs using them).
// Found by red-team round 47 (medium). Fixed: seccomp refuses fscrypt's
// key ioctls in every tier (sandbox/linux/seccomp.go fscryptKeyIoctls).
func TestRedteam47FscryptKeyRemovedFromSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount an ext4 image with the encrypt feature")
	}
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("no mkfs.ext4")
	}
	probe := rt47aProbe(t)
	dir := hostDir(t)
	img := filepath.Join(dir, "enc.img")
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("truncate", "-s", "32M", img).CombinedOutput(); err != nil {
		t.Skipf("truncate: %v %s", err, out)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-O", "encrypt", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4 -O encrypt: %v %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("mount -o loop: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	if err := os.Chmod(mnt, 0o755); err != nil {
		t.Fatal(err)
	}

	cfg := agentbox.DefaultConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The host uid the sandbox runs as: the victim is that user.
	res, err := m.ExecArgs(ctx, probe, []string{"hostuid"}, agentbox.WithWorkingDir(dir))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("hostuid: %v %+v", err, res)
	}
	uidStr, ok := strings.CutPrefix(strings.TrimSpace(res.Stdout), "hostuid=")
	hostUID, cerr := strconv.Atoi(uidStr)
	if !ok || cerr != nil {
		t.Fatalf("hostuid: %q", res.Stdout)
	}
	t.Logf("the sandbox runs as host uid %d", hostUID)
	private := filepath.Join(mnt, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(private, hostUID, hostUID); err != nil {
		t.Fatal(err)
	}

	// The test binary, copied where the victim's uid may run it.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	victimBin := filepath.Join(dir, "victim")
	if err := os.WriteFile(victimBin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := exec.Command(victimBin, "-test.run=^$")
	victim.Dir = dir
	victim.Env = append(os.Environ(), rt47aVictimEnv+"="+mnt)
	victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(hostUID), Gid: uint32(hostUID)}}
	out, err := victim.CombinedOutput()
	idHex, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "id=")
	if err != nil || !ok {
		t.Skipf("the victim could not unlock an encrypted directory here: %v %q", err, out)
	}
	// Controls: the key is present with the victim's claim; its file reads.
	if st, users := rt47aKeyStatus(t, mnt, idHex); st != unix.FSCRYPT_KEY_STATUS_PRESENT || users != 1 {
		t.Fatalf("premise: key %s status %d users %d, want present with 1 claim", idHex, st, users)
	}
	notes := filepath.Join(private, "notes.txt")
	if b, err := os.ReadFile(notes); err != nil || !strings.Contains(string(b), "private notes") {
		t.Fatalf("premise: the unlocked file does not read: %v %q", err, b)
	}
	res, err = m.ExecArgs(ctx, "/bin/ls", []string{"-a", mnt}, agentbox.WithWorkingDir(dir))
	if err != nil || res.ExitCode != 0 || !strings.Contains(res.Stdout, "private") {
		t.Fatalf("control: the sandbox does not see the file system: %v %+v", err, res)
	}

	// The attack.
	res, err = m.ExecArgs(ctx, probe, []string{"fscryptrm", mnt, idHex}, agentbox.WithWorkingDir(dir))
	if err != nil {
		t.Fatalf("fscryptrm: %v", err)
	}
	t.Logf("sandboxed FS_IOC_REMOVE_ENCRYPTION_KEY: exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	st, users := rt47aKeyStatus(t, mnt, idHex)
	_, rerr := os.ReadFile(notes)
	entries, _ := os.ReadDir(private)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Logf("after: key status %d users %d; read %s: %v; names in private/: %q", st, users, notes, rerr, names)
	if st != unix.FSCRYPT_KEY_STATUS_PRESENT || users == 0 || rerr != nil {
		t.Errorf("ENCRYPTED DIRECTORY LOCKED FROM THE SANDBOX: a sandboxed command removed the host user's fscrypt key "+
			"(status %d, %d claims left): the user's encrypted directory is locked (%v)", st, users, rerr)
	}
}
