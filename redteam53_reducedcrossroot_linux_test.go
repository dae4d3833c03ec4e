//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The calls run through rt51bRunCalls (round 51's reduced-tier harness).

// TestRedteam53ReducedCrossRootLink: round 50's hard-link search looks
// through a denied directory for files with other names only where the
// directory lies inside a writable root or a granted one
// (plan_denylinks.go: linkedFiles, `paths.WithinAny(d, areas)`), on the
// ground that a command can only have linked a file where it could write.
// But a denied directory can hold a granted one without lying inside any:
// keys/ denied, keys/work/ once writable. The reduced tier grants
// Landlock's REFER on every writable root and has no mounts, so a command
// links a file of keys/work/ into another writable root of the same call
// (proj/), and a later call that denies keys/ never looks for it.
//
// The attack: call one (reduced tier: no user namespaces, warn fallback),
// with keys/work/ and proj/ writable, no deny, runs
// `ln ../keys/work/id notes.txt` in proj/. The host later writes a new
// secret into keys/work/id. Call two, with keys/ denied (proj/ read-only,
// its working directory), runs `cat notes.txt` and gets it. Call two is
// also the reduced tier here; a full-tier call two is planned by the same
// planner, which never looks for notes.txt (not run here: call one must
// be unprivileged and call two then has no full tier).
//
// Why it works: sandbox/linux/plan_denylinks.go: (*planner).linkedFiles
// walks only the denied directories that lie within an area; keys/
// contains the area keys/work/ but is not within one, so keys/work/id is
// never a file whose other names are looked for, and proj/notes.txt,
// inside a granted area, is neither masked nor Landlock-denied
// (sandbox/linux/landlock.go grants llWrite, REFER included, on every
// writable root, which is what lets call one link across roots).
//
// Severity: high (a denied file read through its other name).
//
// Controls: keys/work/id is unreadable by its own name in call two
// (Landlock holds keys/); a plain file of keys/ stays unreadable; the same
// attack with keys/work/ itself denied is caught (the directory lies in a
// granted area and is walked); notes.txt is keys/work/id's inode on the
// host.
//
// Found by red-team round 53.
// Fixed: a denied directory that holds an area is looked through too
// (linkedFiles).
func TestRedteam53ReducedCrossRootLink(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	for _, denyWhole := range []bool{false, true} {
		name := "control-deny-granted-dir"
		if denyWhole {
			name = "deny-enclosing-dir"
		}
		t.Run(name, func(t *testing.T) {
			root := hostDir(t)
			keys := filepath.Join(root, "keys")
			work := filepath.Join(keys, "work")
			proj := filepath.Join(root, "proj")
			for _, d := range []string{work, proj} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			id := filepath.Join(work, "id")
			if err := os.WriteFile(id, []byte("placeholder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			const plainSecret = "RT53A-PLAIN-KEY"
			plain := filepath.Join(keys, "plain")
			if err := os.WriteFile(plain, []byte(plainSecret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := rt51bRunCalls(t, []rt51bCall{{Script: "ln ../keys/work/id notes.txt && echo LINKED", Writable: []string{work, proj}, Workdir: proj}})
			if res[0].Code != 0 {
				t.Fatalf("premise: call 1 could not link across roots: %+v", res[0])
			}
			rt53aSameFile(t, id, filepath.Join(proj, "notes.txt"))
			const secret = "RT53A-CROSSROOT-SECRET"
			if err := os.WriteFile(id, []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			deny := work
			if denyWhole {
				deny = keys
			}
			res = rt51bRunCalls(t, []rt51bCall{{
				Script:   "cat " + shq(plain) + "; cat " + shq(id) + "; echo ---; cat notes.txt",
				Workdir:  proj,
				DenyRead: deny,
			}})
			direct, viaLink, ok := strings.Cut(res[0].Stdout, "---")
			if !ok {
				t.Fatalf("premise: the script did not run to its end: %+v", res[0])
			}
			if strings.Contains(direct, secret) || (denyWhole && strings.Contains(direct, plainSecret)) {
				t.Fatalf("control: the deny does not hold by the files' own names: %q", direct)
			}
			if strings.Contains(viaLink, secret) {
				if !denyWhole {
					t.Fatalf("control: round 50's fix does not hold for the granted directory itself: %q", viaLink)
				}
				t.Errorf("the denied file %s was read through its other name proj/notes.txt, linked across writable roots: %q", id, viaLink)
			}
		})
	}
}
