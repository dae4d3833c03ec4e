//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam15ProtectedLinkThroughProcSelfCwd: a protected name that is a
// link leads, for the host program that reads it, where the kernel walks
// it in that program. A first command plants .mise.toml and lefthook.yml
// (protected only where they exist) as links to /proc/self/cwd/payload:
// mise, entering the project in the user's shell, and lefthook, run at the
// repository's top by git, have the project as working directory and read
// <root>/payload. The user reviews and trusts them (harmless content).
// The plan of the next run follows the links with paths.Resolve in
// agentbox's own process, where /proc/self/cwd is agentbox's working
// directory, so it holds a file elsewhere and leaves <root>/payload
// writable: the command rewrites the trusted configuration. The control
// beside it, a plain relative link to payload2, holds its target.
func TestRedteam15ProtectedLinkThroughProcSelfCwd(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	const benign = "benign\n"
	first := []probe{
		control("plant_payload", "write:"+w+"/payload", ""),
		control("plant_payload2", "write:"+w+"/payload2", ""),
		control("plant_mise", "symlink:/proc/self/cwd/payload|"+w+"/.mise.toml", ""),
		control("plant_lefthook", "symlink:/proc/thread-self/cwd/payload|"+w+"/lefthook.yml", ""),
		control("plant_precommit", "symlink:payload2|"+w+"/.pre-commit-config.yaml", ""),
	}
	runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	for _, p := range []string{"payload", "payload2"} {
		if err := os.WriteFile(filepath.Join(w, p), []byte(benign), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		attack("plain_link_target", "write:"+w+"/payload2", "EROFS"),
		attack("proc_cwd_link_target", "write:"+w+"/payload", "EROFS"),
	}
	runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
	// What mise or lefthook, working in w, reads through the link.
	for _, p := range []string{"payload", "payload2"} {
		if b, err := os.ReadFile(filepath.Join(w, p)); err != nil || string(b) != benign {
			t.Errorf("ESCAPE: %s, read through a protected link from the project, now holds %q (%v)", p, strings.TrimSpace(string(b)), err)
		}
	}
}
