//go:build linux

package attack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
//
// Fixed: a way through /proc's own links (paths.Resolution.ViaProc) leads
// wherever its reader is, so nothing can be held for it: the plan refuses
// the sandbox, naming the link (sandbox.ErrSetup); the plain link beside
// it, in a root of its own, is held as before.
func TestRedteam15ProtectedLinkThroughProcSelfCwd(t *testing.T) {
	t.Parallel()
	const benign = "benign\n"
	for _, tc := range []struct {
		name, dest, link string
		refused          bool
	}{
		{"self_cwd", "/proc/self/cwd/payload", ".mise.toml", true},
		{"thread_self_cwd", "/proc/thread-self/cwd/payload", "lefthook.yml", true},
		{"plain_control", "payload", ".pre-commit-config.yaml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDir(t, 0o755)
			giveToSandboxUser(t, w)
			runProbes(t, ciMgr, []probe{
				control("plant_payload", "write:"+w+"/payload", ""),
				control("plant_link", "symlink:"+tc.dest+"|"+w+"/"+tc.link, ""),
			}, agentbox.WithWritableRoots(w))
			// The user reviews and trusts it.
			if err := os.WriteFile(filepath.Join(w, "payload"), []byte(benign), 0o644); err != nil {
				t.Fatal(err)
			}
			second := []probe{
				control("write_source", "write:"+w+"/main.go", ""),
				attack("link_target", "write:"+w+"/payload", "EROFS"),
			}
			if tc.refused {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				_, err := ciMgr.ExecArgs(ctx, attackerBin, probeArgs(second), agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(w))
				if err == nil || !strings.Contains(err.Error(), filepath.Join(w, tc.link)+" leads through /proc") {
					t.Errorf("a protected link through /proc: %v; want the sandbox refused, naming the link", err)
				}
			} else {
				runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
			}
			// What mise or lefthook, working in w, reads through the link.
			if b, err := os.ReadFile(filepath.Join(w, "payload")); err != nil || string(b) != benign {
				t.Errorf("ESCAPE: payload, read through a protected link from the project, now holds %q (%v)", strings.TrimSpace(string(b)), err)
			}
		})
	}
}
