//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam53DenyLinkRenamedRoot: the directories sandboxes were ever
// given to write are recorded by identity (device and inode) beside their
// path, "so that renaming it or a parent ... does not take its links out
// of the record" (granted.go), but round 50's hard-link search is handed
// the paths only. Once the host renames a project a sandbox wrote, the
// other names the command left in it are looked for at the old path,
// which no longer exists, and are not found.
//
// The attack: call one, with proj/ writable and no deny, runs
// `ln token .cache-x`. The user then moves the project (`mv proj proj2`:
// a rename, a reorganised workspace, a checkout moved aside), and the
// host writes a new secret into proj2/token. Call two shows proj2/
// read-only with WithDenyRead(proj2/token) and runs `cat .cache-x`: the
// new secret. Without the rename the same second call gets nothing (the
// link is masked).
//
// Why it works: manager.go: (*Manager).spec fills
// spec.Filesystem.Granted with filepath.Clean(g.path) of each record
// entry, dropping g.id; sandbox/linux/plan_denylinks.go:
// (*planner).linkAreas and otherNamesIn walk those paths, and walkLinked
// takes a missing root as having nothing to find. The record's identity,
// which checkPlantedLinks uses (plantArea.holds), is never consulted for
// the hard-link search. (The same holds for a project reached through
// another mount, a bind mount or a container volume of it: the link is
// found, and masked, at the recorded path only.)
//
// Severity: high (a denied file read through its other name, round 50's
// finding again, after an ordinary host action).
//
// Controls: without the rename the link is masked in call two; token is
// unreadable by its own name in call two; .cache-x is token's inode on
// the host after the rename.
//
// Found by red-team round 53.
// Fixed: a recorded directory renamed since is found as the ancestor of a
// deny path with its identity (granted.go: grantedAreas).
func TestRedteam53DenyLinkRenamedRoot(t *testing.T) {
	for _, rename := range []bool{false, true} {
		name := "control-not-renamed"
		if rename {
			name = "renamed"
		}
		t.Run(name, func(t *testing.T) {
			root := hostDir(t)
			proj := filepath.Join(root, "proj")
			if err := os.Mkdir(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, "token"), []byte("placeholder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m := rt50aManager(t)
			if _, errOut, code := rt50aExec(t, m, "ln token .cache-x",
				agentbox.WithWritableRoots(proj), agentbox.WithWorkingDir(proj)); code != 0 {
				t.Fatalf("premise: call 1 could not link: %d %q", code, errOut)
			}
			now := proj
			if rename {
				now = filepath.Join(root, "proj2")
				if err := os.Rename(proj, now); err != nil {
					t.Fatal(err)
				}
			}
			token := filepath.Join(now, "token")
			rt53aSameFile(t, token, filepath.Join(now, ".cache-x"))
			const secret = "RT53A-RENAMED-SECRET"
			if err := os.WriteFile(token, []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := rt50aExec(t, m, "cat token && echo DIRECT-READ; echo ---; cat .cache-x",
				agentbox.WithWorkingDir(now), agentbox.WithDenyRead(token))
			t.Logf("call 2: stdout %q stderr %q", out, errOut)
			direct, viaLink, _ := strings.Cut(out, "---")
			if strings.Contains(direct, secret) || strings.Contains(direct, "DIRECT-READ") {
				t.Fatalf("control: the deny on token itself does not hold: %q", out)
			}
			if strings.Contains(viaLink, secret) {
				if !rename {
					t.Fatalf("control: round 50's fix does not hold without the rename: %q", viaLink)
				}
				t.Errorf("the denied file %s was read through its other name .cache-x after the project was renamed: %q", token, viaLink)
			}
		})
	}
}
