//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam12DenySymlinkUnderLockedDir denies a path that is a symbolic
// link inside a directory of the caller's own that agentbox cannot search
// (mode 000), in a writable root. Where agentbox can look, a denied link's
// target is denied too (resolveAll keeps both names); here it cannot
// resolve the link, and the init's opMaskAuto skips a symlink, so neither
// name is masked. The command, owner of the directory, makes it searchable
// again and reads the file through the denied name. A denied regular file
// beside it is masked (control).
//
// Fixed: opMaskAuto that finds a link masks the link itself with an empty
// file mounted on it (holdLink with no source): the denied name leads
// nowhere, whatever the command does to the directory.
func TestRedteam12DenySymlinkUnderLockedDir(t *testing.T) {
	t.Parallel()
	if isRoot {
		t.Skip("root can search every directory: the deny path is resolved")
	}
	w := newDir(t, 0o755)
	locked := filepath.Join(w, "locked")
	secret := uniqueSecret("linked")
	writeFile(t, filepath.Join(locked, "real.txt"), secret, 0o600)
	writeFile(t, filepath.Join(locked, "plain.txt"), uniqueSecret("plain"), 0o600)
	writeFile(t, filepath.Join(w, "ok.txt"), publicContent, 0o644)
	if err := os.Symlink("real.txt", filepath.Join(locked, "secret.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	ps := []probe{
		control("read_ok", "read:"+w+"/ok.txt", publicContent),
		control("chmod_locked", "chmod:700|"+locked, ""),
		attack("denied_plain_file", "read:"+locked+"/plain.txt"),
		attack("denied_link", "read:"+locked+"/secret.txt"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w),
		agentbox.WithDenyRead(filepath.Join(locked, "secret.txt"), filepath.Join(locked, "plain.txt")))
}
