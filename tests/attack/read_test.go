//go:build linux

package attack_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/credpaths"
	"golang.org/x/sys/unix"
)

// readFixture is a host directory with a denied file, a denied directory and
// a public file beside them, all readable by file permissions, so that
// only the sandbox stands between the attacker and the secrets.
type readFixture struct {
	dir, public, secretFile, secretDir, secret, dirSecret string
}

const publicContent = "public-content"

func newReadFixture(t *testing.T) readFixture {
	t.Helper()
	dir := newDir(t, 0o755)
	f := readFixture{
		dir:        dir,
		public:     filepath.Join(dir, "public.txt"),
		secretFile: filepath.Join(dir, "secret.txt"),
		secretDir:  filepath.Join(dir, "secret-dir"),
		secret:     uniqueSecret("file"),
		dirSecret:  uniqueSecret("dir"),
	}
	writeFile(t, f.public, publicContent, 0o644)
	writeFile(t, f.secretFile, f.secret, 0o644)
	writeFile(t, filepath.Join(f.secretDir, "inner.txt"), f.dirSecret, 0o644)
	return f
}

// TestReadDenied reads denied paths every way there is: directly, through
// symlinks planted before and during the run, hard links, rename,
// /proc/self/root and /proc/1/root, O_PATH reopening; beside each, the same
// way to a public file works.
func TestReadDenied(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t)
	w := newDir(t, 0o755)
	inRoot := filepath.Join(w, ".env") // a denied file inside the writable root
	inRootSecret := uniqueSecret("in-root")
	writeFile(t, inRoot, inRootSecret, 0o644)
	for link, target := range map[string]string{
		"link-public": f.public, "link-file": f.secretFile, "link-dir": f.secretDir,
	} {
		if err := os.Symlink(target, filepath.Join(w, link)); err != nil {
			t.Fatal(err)
		}
	}
	ps := []probe{
		control("public", "read:"+f.public, publicContent),
		control("public_via_symlink", "read:"+w+"/link-public", publicContent),
		control("public_via_proc_self_root", "read:/proc/self/root"+f.public, publicContent),
		control("public_opath_reopen", "opathreopen:"+f.public, publicContent),
		attack("direct", "read:"+f.secretFile, "EACCES"),
		attack("dir_listing", "readdir:"+f.secretDir, "EACCES"),
		attack("dir_file", "read:"+f.secretDir+"/inner.txt", "EACCES"),
		attack("symlink_in_root", "read:"+w+"/link-file", "EACCES"),
		attack("symlink_dir_in_root", "read:"+w+"/link-dir/inner.txt", "EACCES"),
		control("plant_symlink", "symlink:"+f.secretFile+"|"+w+"/planted", ""),
		attack("planted_symlink", "read:"+w+"/planted", "EACCES"),
		attack("hardlink", "link:"+f.secretFile+"|"+w+"/hard"),
		attack("hardlink_read", "read:"+w+"/hard"),
		attack("hardlink_dir_file", "link:"+f.secretDir+"/inner.txt|"+w+"/hard2"),
		attack("rename_into_root", "rename:"+f.secretFile+"|"+w+"/moved"),
		attack("proc_self_root", "read:/proc/self/root"+f.secretFile, "EACCES"),
		attack("proc_self_root_dir", "read:/proc/self/root"+f.secretDir+"/inner.txt", "EACCES"),
		attack("proc_1_root", "read:/proc/1/root"+f.secretFile, "EACCES"),
		attack("proc_1_root_public", "read:/proc/1/root"+f.public, "EACCES"),
		attack("opath_reopen", "opathreopen:"+f.secretFile, "EACCES"),
		attack("in_root_read", "read:"+inRoot, "EACCES"),
		attack("in_root_hardlink", "link:"+inRoot+"|"+w+"/env-copy"),
		attack("in_root_rename", "rename:"+inRoot+"|"+w+"/env-moved"),
		attack("in_root_unlink", "unlink:"+inRoot),
		attack("in_root_overwrite", "write:"+inRoot),
		attack("etc_shadow", "read:/etc/shadow"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w),
		agentbox.WithDenyRead(f.secretFile, f.secretDir, inRoot))

	for path, want := range map[string]string{f.secretFile: f.secret, inRoot: inRootSecret} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("denied file %s changed on the host: %q, %v", path, b, err)
		}
	}
}

// TestReadDeniedCreatedLater denies a path that does not exist when the
// sandbox starts (outside any writable root, so only Landlock guards it);
// the host then creates it while the sandbox runs.
func TestReadDeniedCreatedLater(t *testing.T) {
	t.Parallel()
	dir := newDir(t, 0o755)
	guarded := filepath.Join(dir, "guarded")
	other := filepath.Join(dir, "other")
	for _, d := range []string{guarded, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	late := filepath.Join(guarded, "late-secret.txt")
	latePublic := filepath.Join(other, "late-public.txt")
	goFile := filepath.Join(dir, "go")
	ps := []probe{
		control("wait", "waitexist:"+goFile, ""),
		control("late_public", "read:"+latePublic, publicContent),
		attack("late_secret", "read:"+late, "EACCES"),
		attack("late_secret_opath_reopen", "opathreopen:"+late, "EACCES"),
	}
	run := startProbes(t, ciMgr, ps, nil, agentbox.WithDenyRead(late))
	run.waitLine(t, "STARTED")
	secret := uniqueSecret("late")
	writeFile(t, late, secret, 0o644)
	writeFile(t, latePublic, publicContent, 0o644)
	writeFile(t, goFile, "", 0o644)
	run.check(t, ps)
}

// TestInheritedFD opens files in the agentbox process without O_CLOEXEC, as
// careless host code does, and lets the sandbox look for them by number,
// through /proc/self/fd and through the init's /proc/1/fd.
func TestInheritedFD(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t)
	secretFD, err := syscall.Open(f.secretFile, syscall.O_RDONLY, 0) // no O_CLOEXEC on purpose
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(secretFD)
	publicFD, err := syscall.Open(f.public, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(publicFD)
	ps := []probe{
		control("public_by_path", "read:"+f.public, publicContent),
		attack("inherited_secret_fd", fmt.Sprintf("fdread:%d|%s", secretFD, f.secret)),
		attack("inherited_public_fd", fmt.Sprintf("fdread:%d|%s", publicFD, publicContent)),
	}
	runProbes(t, ciMgr, ps, agentbox.WithDenyRead(f.secretFile))
}

// TestOpenByHandleAt hands the sandbox a valid file handle of a denied file
// (obtained on the host with name_to_handle_at) to open with
// open_by_handle_at, which bypasses path lookup.
func TestOpenByHandleAt(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t)
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, f.secretFile, 0)
	if err != nil {
		t.Skipf("the filesystem under %s gives no file handles: %v", f.dir, err)
	}
	if isRoot {
		// The control: the handle really opens the secret (this needs
		// CAP_DAC_READ_SEARCH, so only root can check it on the host).
		mfd, err := unix.Open(f.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := unix.OpenByHandleAt(mfd, h, unix.O_RDONLY|unix.O_CLOEXEC)
		unix.Close(mfd)
		if err != nil {
			t.Fatalf("control: open_by_handle_at on the host: %v", err)
		}
		b := make([]byte, 256)
		n, _ := unix.Read(fd, b)
		unix.Close(fd)
		if string(b[:n]) != f.secret {
			t.Fatalf("control: the handle opened %q, not the secret", b[:n])
		}
	}
	spec := fmt.Sprintf("handle:%d|%s|%s", h.Type(), hex.EncodeToString(h.Bytes()), f.dir)
	ps := []probe{
		control("public", "read:"+f.public, publicContent),
		attack("open_by_handle_at", spec),
		attack("name_to_handle_at", "sys:name_to_handle_at"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithDenyRead(f.secretFile))
}

// TestDefaultPolicy attacks DefaultConfig as a library user gets it: the
// credential stores in the (fake) home, /sys, writes to the home, and the
// host's loopback from the filtered network.
func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	m := newManager(t, defaultConfig())
	host := newHostListeners(t)
	ps := []probe{
		control("home_profile", "read:"+fakeHome+"/.profile", homeProfile),
		control("private_tmp", "write:/tmp/default-policy", ""),
		attack("ssh_key", "read:"+fakeHome+"/.ssh/id_ed25519", "EACCES"),
		attack("ssh_dir", "readdir:"+fakeHome+"/.ssh", "EACCES"),
		attack("aws_credentials", "read:"+fakeHome+"/.aws/credentials", "EACCES"),
		attack("gh_token", "read:"+fakeHome+"/.config/gh/hosts.yml", "EACCES"),
		attack("agentbox_state", "read:"+stateDir+"/registry.json"),
		attack("agentbox_state_dir", "readdir:"+stateDir),
		attack("sys", "readdir:/sys"),
		attack("sys_kernel", "readdir:/sys/kernel"),
		attack("write_home", "write:"+fakeHome+"/.bashrc"),
		attack("host_loopback_tcp", "tcp:"+host.tcp),
	}
	// Every credential store of the default deny set, with the ordinary
	// files beside some of them as controls.
	leaks := []string{homeSSHKey, homeAWSCreds, homeGHToken, stateSecret}
	for _, p := range credpaths.Home {
		target := filepath.Join(fakeHome, p)
		op := "read:"
		if fi, err := os.Stat(target); err == nil && fi.IsDir() {
			op = "readdir:"
		}
		ps = append(ps, attack("store_"+strings.ReplaceAll(p, " ", "_"), op+target))
		leaks = append(leaks, homeCredentialContent(p))
	}
	for _, p := range homeNeighbours {
		ps = append(ps, control("neighbour_"+p, "read:"+filepath.Join(fakeHome, p), homeNeighbourContent))
	}
	o, _ := runProbes(t, m, ps)
	for label, r := range o.results {
		for _, s := range leaks {
			if r.verdict == allowed && r.detail != "" && containsAny(r.detail, s) {
				t.Errorf("ESCAPE %s: a credential leaked: %q", label, r.detail)
			}
		}
	}
	host.expectUntouched(t)
}

// TestDenyPathUnderUnsearchableDir denies a file below a directory the
// sandbox's user may not search (mode 000). The sandbox could not reach the
// file anyway; it must still start. (With the default deny list this is
// the case of every root-started sandbox once agentbox's own
// /var/lib/agentbox/state exists: mode 0700, owned by root.)
func TestDenyPathUnderUnsearchableDir(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t)
	locked := filepath.Join(f.dir, "locked")
	writeFile(t, filepath.Join(locked, "inner", "secret.txt"), f.secret, 0o600)
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	ps := []probe{
		control("public", "read:"+f.public, publicContent),
		attack("locked", "read:"+locked+"/inner/secret.txt"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithDenyRead(filepath.Join(locked, "inner")))
}
