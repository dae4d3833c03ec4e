//go:build linux

package attack_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// hostTmpDir creates a fresh directory in the host's /tmp, which every
// sandbox replaces with a private one of its own.
func hostTmpDir(t *testing.T) string {
	t.Helper()
	return newDirIn(t, "/tmp", 0o755)
}

// TestWorkingDirInHostTmp runs the attacker from a directory inside the
// host's /tmp. The sandbox is shown that directory, read-only, as it is the
// rest of the host; it must not change it, nor see anything else of the
// host's /tmp, and its own writes to /tmp stay in its private one.
func TestWorkingDirInHostTmp(t *testing.T) {
	t.Parallel()
	work := hostTmpDir(t)
	secret := uniqueSecret("workdir")
	writeFile(t, filepath.Join(work, "notes.txt"), secret, 0o644)
	writeFile(t, filepath.Join(work, "sub", "more.txt"), secret, 0o644)
	writeFile(t, filepath.Join(work, "keys", "id"), uniqueSecret("denied-in-workdir"), 0o644)
	sibling := hostTmpDir(t)
	writeFile(t, filepath.Join(sibling, "other.txt"), uniqueSecret("tmp-sibling"), 0o644)
	scratch := filepath.Join("/tmp", "agentbox-scratch-"+filepath.Base(work))
	t.Cleanup(func() { os.Remove(scratch) })
	before := snapshot(t, work)

	ps := []probe{
		control("read_relative", "read:notes.txt", secret),
		control("read_nested", "read:sub/more.txt", secret),
		control("write_private_tmp", "write:"+scratch, ""),
		attack("write_new", "write:"+work+"/new.txt"),
		attack("overwrite", "write:"+work+"/notes.txt"),
		attack("mkdir", "mkdir:"+work+"/dir"),
		attack("unlink", "unlink:"+work+"/notes.txt"),
		attack("rename_away", "rename:"+work+"/sub|"+work+"/moved"),
		attack("chmod", "chmod:4777|"+work+"/notes.txt"),
		attack("read_tmp_sibling", "read:"+sibling+"/other.txt", "ENOENT"),
		attack("read_denied_inside", "read:keys/id"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWorkingDir(work), agentbox.WithDenyRead(filepath.Join(work, "keys")))

	for _, d := range diffSnapshots(before, snapshot(t, work)) {
		t.Errorf("ESCAPE: the working directory in the host's /tmp changed: %s", d)
	}
	if _, err := os.Lstat(scratch); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ESCAPE: the sandbox's private /tmp reached the host: %s (%v)", scratch, err)
	}
}

// TestWorkingDirIsHostTmp checks that the host's /tmp itself is refused as
// a working directory, with a reason, rather than shown to the sandbox.
func TestWorkingDirIsHostTmp(t *testing.T) {
	t.Parallel()
	_, err := ciMgr.ExecArgs(t.Context(), "/bin/true", nil, agentbox.WithWorkingDir("/tmp"))
	if !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Fatalf("working directory /tmp: got %v, want ErrConfigInvalid", err)
	}
}

// TestReadAllowListInHostTmp gives the sandbox a read allow-list whose only
// entry lies in the host's /tmp: the private /tmp must not hide it, and it
// must stay read-only, with nothing else of the host's /tmp or of the rest
// of the host's files beside it.
func TestReadAllowListInHostTmp(t *testing.T) {
	t.Parallel()
	data := hostTmpDir(t)
	secret := uniqueSecret("allowed-read")
	writeFile(t, filepath.Join(data, "input.txt"), secret, 0o644)
	sibling := hostTmpDir(t)
	writeFile(t, filepath.Join(sibling, "other.txt"), uniqueSecret("tmp-sibling"), 0o644)
	unlisted := newDir(t, 0o755)
	writeFile(t, filepath.Join(unlisted, "private.txt"), uniqueSecret("unlisted"), 0o644)
	before := snapshot(t, data)

	cfg := ciConfig()
	cfg.Filesystem.AllowRead = []string{data, attackerBin}
	ps := []probe{
		control("read_listed", "read:"+data+"/input.txt", secret),
		attack("write_listed", "write:"+data+"/new.txt"),
		attack("unlink_listed", "unlink:"+data+"/input.txt"),
		attack("read_tmp_sibling", "read:"+sibling+"/other.txt", "ENOENT"),
		attack("read_unlisted", "read:"+unlisted+"/private.txt"),
	}
	runProbes(t, newManager(t, cfg), ps)
	for _, d := range diffSnapshots(before, snapshot(t, data)) {
		t.Errorf("ESCAPE: the allowed directory in the host's /tmp changed: %s", d)
	}
}
