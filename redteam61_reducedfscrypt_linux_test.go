//go:build linux

package agentbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// rt61cReducedEnv makes the test binary, started again (as an unprivileged
// uid) by TestRedteam61ReducedTierFscryptPolicyOutsideRoots, stand for a
// machine whose user namespaces grant nothing (mount refused, as
// tests/attack's "no-capabilities"), run the script given in it through
// the warn fallback's reduced tier with the directory rt61cReducedDirEnv
// names as working directory and only writable root, and print the
// ExecResult as JSON (or "REFUSED" and the error).
const (
	rt61cReducedEnv    = "AGENTBOX_RT61C_REDUCED"
	rt61cReducedDirEnv = "AGENTBOX_RT61C_REDUCED_DIR"
	// rt61cFullEnv, when set, leaves the machine as it is: the full tier.
	rt61cFullEnv = "AGENTBOX_RT61C_FULL"
)

func init() {
	if script := os.Getenv(rt61cReducedEnv); script != "" {
		os.Exit(rt61cReducedChild(script, os.Getenv(rt61cReducedDirEnv)))
	}
}

func rt61cReducedChild(script, dir string) int {
	if os.Getenv(rt61cFullEnv) == "" {
		if err := nomount.Install(); err != nil {
			fmt.Fprintln(os.Stderr, "nomount:", err)
			return 1
		}
	}
	cfg := agentbox.DefaultConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		fmt.Println("REFUSED", err)
		return 0
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", script},
		agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
	if err != nil {
		fmt.Println("REFUSED", err)
		return 0
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// rt61cSetPolicyPy sets a v1 fscrypt policy (AES-256-XTS contents,
// AES-256-CTS names, a random master key descriptor no keyring holds) on
// the directory argv[1], opened for reading only, and prints "policy set"
// or the error; then tries to create a file in it.
const rt61cSetPolicyPy = `
import fcntl, os, struct, sys
d = sys.argv[1]
fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
try:
    fcntl.ioctl(fd, 0x800c6613, struct.pack("BBBB8s", 0, 1, 4, 0, os.urandom(8)))
    print("policy set")
except OSError as e:
    print("policy refused:", e)
try:
    open(os.path.join(d, "f"), "w").close()
    print("create ok")
except OSError as e:
    print("create failed:", e)
`

// rt61cEncrypted reports whether dir has an fscrypt policy
// (FS_IOC_GET_ENCRYPTION_POLICY answers ENODATA for one without).
func rt61cEncrypted(t *testing.T, dir string) bool {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var pol [12]byte
	const fsIocGetEncryptionPolicy = 0x400c6615
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIocGetEncryptionPolicy, uintptr(unsafe.Pointer(&pol[0])))
	switch {
	case e == 0:
		return true
	case e == unix.ENODATA:
		return false
	default:
		t.Fatalf("FS_IOC_GET_ENCRYPTION_POLICY %s: %v", dir, e)
		return false
	}
}

// TestRedteam61ReducedTierFscryptPolicyOutsideRoots: in the reduced tier
// (no user namespaces, warn fallback) a sandboxed command encrypts an
// empty host directory outside its writable roots, with a key nobody
// has: FS_IOC_SET_ENCRYPTION_POLICY with a v1 policy and a random master
// key descriptor, through a descriptor of the directory opened for
// reading only.
//
//	python3 -c '...ioctl(open(DIR, O_RDONLY), FS_IOC_SET_ENCRYPTION_POLICY, v1 policy)'
//
// Why it works: fscrypt_ioctl_set_policy asks only that the caller own
// the directory (inode_owner_or_capable) and that its mount be writable
// (mnt_want_write_file, not the descriptor's mode), and a v1 policy's key
// need not be present. The full tier shows the host read-only (EROFS); the
// reduced tier has no read-only mounts, Landlock has no right for a
// directory's ioctls (LANDLOCK_ACCESS_FS_IOCTL_DEV is for devices only),
// and seccomp's ioctlRule (sandbox/linux/seccomp.go) refuses in the
// reduced tier only the inode-flag and generation ioctls
// (hostInodeIoctls) and fscrypt's key ioctls (fscryptKeyIoctls), not the
// policy ioctl. The policy is permanent: the host directory, outside the
// writable roots, can no longer hold a file (every create fails with
// ENOKEY, root's too) until it is removed; the sandbox changed a host
// directory the policy keeps read-only, as chattr did before
// hostInodeIoctls (TestRedteam20ReducedTierHostMetadata).
//
// The test (root only: it mounts an ext4 image with the encrypt feature,
// as TestRedteam47FscryptKeyRemovedFromSandbox does; the reduced tier
// refuses root callers, so agentbox runs as nobody) checks the premise on
// the host (the same script as nobody encrypts another empty directory,
// and a create there then fails), and the controls: the sandbox writes a
// file in its writable root and may encrypt an empty directory of its own
// there; the run is the reduced tier.
//
// Severity: high (a write the policy denies: a persistent change to a host
// directory outside the writable roots; its effect is a denial of service
// of whatever uses that directory). Found by red-team round 61. Fixed: seccomp refuses FS_IOC_SET_ENCRYPTION_POLICY in every tier
// (fscryptKeyIoctls).
func TestRedteam61ReducedTierFscryptPolicyOutsideRoots(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount an ext4 image with the encrypt feature (agentbox then runs as nobody)")
	}
	for _, p := range []string{"mkfs.ext4", "mount", "truncate"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 (package python3)")
	}
	const uid = 65534
	cred := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	base := hostDir(t)
	img := filepath.Join(base, "enc.img")
	mnt := filepath.Join(base, "mnt")
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
	mkOwned := func(p string) string {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	premise := mkOwned(filepath.Join(mnt, "premise"))
	victim := mkOwned(filepath.Join(mnt, "victim")) // outside the writable root
	work := mkOwned(filepath.Join(mnt, "work"))     // the writable root
	own := mkOwned(filepath.Join(work, "own"))
	home := mkOwned(filepath.Join(base, "home"))

	// Premise: the script, run as nobody on the host, encrypts an empty
	// directory of its, after which nothing can be created there.
	pc := exec.Command("/usr/bin/python3", "-c", rt61cSetPolicyPy, premise)
	pc.SysProcAttr = cred
	out, err := pc.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "policy set") || !strings.Contains(string(out), "create failed") {
		t.Skipf("premise: the file system does not take an fscrypt policy here: %v %q", err, out)
	}
	if !rt61cEncrypted(t, premise) {
		t.Fatalf("premise: %s has no policy after the script: %q", premise, out)
	}
	if rt61cEncrypted(t, victim) {
		t.Fatalf("premise: %s has a policy before the run", victim)
	}

	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := strings.Join([]string{
		"PY=" + q(rt61cSetPolicyPy),
		`echo ok > ` + q(filepath.Join(work, "ok")) + ` && echo "R root written"`,
		`echo "R own $(/usr/bin/python3 -c "$PY" ` + q(own) + ` 2>&1 | tr '\n' ' ')"`,
		`echo "R victim $(/usr/bin/python3 -c "$PY" ` + q(victim) + ` 2>&1 | tr '\n' ' ')"`,
	}, "\n")
	res := rt61cRunReduced(t, base, home, work, uid, script)
	// Controls: the writable root takes a file; the ioctl is refused
	// there too (no agent's work sets a policy).
	if b, err := os.ReadFile(filepath.Join(work, "ok")); err != nil || string(b) != "ok\n" {
		t.Fatalf("control: the sandbox did not write its writable root: %v %q", err, b)
	}
	if !strings.Contains(res.Stdout, "R own policy refused") || rt61cEncrypted(t, own) {
		t.Errorf("the sandbox set an fscrypt policy in its writable root (seccomp's fscryptKeyIoctls let it through): %q", res.Stdout)
	}

	// The attack: the host directory outside the writable root.
	encrypted := rt61cEncrypted(t, victim)
	werr := os.WriteFile(filepath.Join(victim, "host-file"), []byte("x"), 0o644)
	t.Logf("after the run: %s encrypted %v; the host (root) creating a file there: %v", victim, encrypted, werr)
	if encrypted || errors.Is(werr, unix.ENOKEY) {
		t.Errorf("HOST DIRECTORY ENCRYPTED FROM THE REDUCED TIER: a sandboxed command set an fscrypt policy with a key "+
			"nobody has on %s, outside its writable roots (%q); the host can no longer create files there: %v",
			victim, strings.TrimSpace(res.Stdout), werr)
	}
}

// rt61cRunReduced runs script through the reduced tier of a copy of the
// test binary (in base) started as uid, with home as HOME and work as
// working directory and only writable root; it checks that the run was
// the reduced tier.
func rt61cRunReduced(t *testing.T, base, home, work string, uid int, script string) *agentbox.ExecResult {
	t.Helper()
	return rt61cRun(t, base, home, work, uid, script, false)
}

// rt61cRun is rt61cRunReduced, or with full the full tier (which it
// checks).
func rt61cRun(t *testing.T, base, home, work string, uid int, script string, full bool) *agentbox.ExecResult {
	t.Helper()
	// The test binary, where uid may run it.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "rt61c.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin",
		rt61cReducedEnv + "=" + script, rt61cReducedDirEnv + "=" + work}
	if full {
		cmd.Env = append(cmd.Env, rt61cFullEnv+"=1")
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	if r, ok := strings.CutPrefix(string(raw), "REFUSED"); ok {
		t.Fatalf("agentbox refused the reduced tier: %s", r)
	}
	var res agentbox.ExecResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%v: %q", err, raw)
	}
	t.Logf("layers %q\nstdout:\n%s\nstderr:\n%s", res.Layers, res.Stdout, res.Stderr)
	if reduced := len(res.Degraded) > 0 && strings.Contains(res.Degraded[0], "reduced tier"); reduced == full {
		t.Fatalf("premise: the run was not the tier asked for (full %v): %q", full, res.Degraded)
	}
	return &res
}
