//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestPolicyEdgeDenyWriteInScratch: a deny-write path inside a scratch
// directory, and a scratch directory that is itself denied to write. A
// scratch directory's changes never reach the host, but the command must
// not change, even in its own view, what the caller said stays read-only.
func TestPolicyEdgeDenyWriteInScratch(t *testing.T) {
	t.Parallel()
	s1, s2 := newDir(t, 0o777), newDir(t, 0o777)
	keep := filepath.Join(s1, "keep.txt")
	writeFile(t, keep, publicContent, 0o666)
	giveToSandboxUser(t, s1, s2, keep)
	ps := []probe{
		control("scratch_write", "write:"+s1+"/other.txt", ""),
		attack("denywrite_in_scratch", "write:"+keep, "EROFS", "EACCES"),
		attack("denywrite_in_scratch_unlink", "unlink:"+keep, "EROFS", "EACCES", "EBUSY"), // EBUSY: the path is a mountpoint
		attack("scratch_itself_denywrite", "write:"+s2+"/new.txt", "EROFS", "EACCES"),
	}
	runProbes(t, ciMgr, ps, agentbox.WithScratch(s1, s2), agentbox.WithDenyWrite(keep, s2))
	if b, err := os.ReadFile(keep); err != nil || string(b) != publicContent {
		t.Errorf("%s changed on the host: %q, %v", keep, b, err)
	}
}
