//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestMaskedDirectoriesShareNothing: every denied directory is masked by a
// read-only bind of one empty directory of the init's (one mount each, not
// a tmpfs each). The command tries to write into one mask, by every way
// there is, to have the write show in the other masks (or on the host):
// each fails, the other mask stays empty, and the host's directories are
// unchanged. Controls: a public file is read and a writable root written
// in the same sandbox.
func TestMaskedDirectoriesShareNothing(t *testing.T) {
	t.Parallel()
	dir := newDir(t, 0o755)
	w := newDir(t, 0o755)
	one, two := filepath.Join(dir, "secret-one"), filepath.Join(dir, "secret-two")
	for _, d := range []string{one, two} {
		writeFile(t, filepath.Join(d, "inner.txt"), uniqueSecret("masked"), 0o644)
	}
	public := filepath.Join(dir, "public.txt")
	writeFile(t, public, publicContent, 0o644)
	before := snapshot(t, dir)
	ps := []probe{
		control("public", "read:"+public, publicContent),
		control("writable_root", "write:"+w+"/ok", ""),
		attack("write_in_mask", "write:"+one+"/planted"),
		attack("mkdir_in_mask", "mkdir:"+one+"/planted-dir"),
		attack("chmod_mask", "chmod:777|"+one),
		attack("list_mask", "readdir:"+one, "EACCES"),
		attack("list_other_mask", "readdir:"+two, "EACCES"),
		attack("read_other_mask_planted", "read:"+two+"/planted"),
		attack("read_masked_file", "read:"+two+"/inner.txt"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w), agentbox.WithDenyRead(one, two))
	after := snapshot(t, dir)
	for p, d := range before {
		if after[p] != d {
			t.Errorf("host %s changed: %s, was %s", p, after[p], d)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("host %s appeared", p)
		}
	}
	if _, err := os.Stat(filepath.Join(w, "ok")); err != nil {
		t.Errorf("control: the writable root was not written: %v", err)
	}
}
