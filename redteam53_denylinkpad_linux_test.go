//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// rt53aSameFile checks that a and b are one inode on the host.
func rt53aSameFile(t *testing.T, a, b string) {
	t.Helper()
	var sa, sb syscall.Stat_t
	if err := syscall.Stat(a, &sa); err != nil {
		t.Fatalf("premise: %v", err)
	}
	if err := syscall.Stat(b, &sb); err != nil {
		t.Fatalf("premise: no second name on the host: %v", err)
	}
	if sa.Dev != sb.Dev || sa.Ino != sb.Ino || sa.Nlink < 2 {
		t.Fatalf("premise: %s is not a hard link of %s (ino %d/%d nlink %d)", b, a, sa.Ino, sb.Ino, sa.Nlink)
	}
}

// TestRedteam53DenyLinkPadded: round 50's fix looks through a denied
// directory for the files with other names (hard links) only up to
// 10,000 entries, and silently stops there. The command pads the
// directory first, so that the walk gives up before it reaches the file
// it linked, and the link stays readable.
//
// The attack: call one (no deny on keys/, keys/ in its writable root, as
// in TestRedteam50DenyReadHardLinkReadOnlyArea) runs
// `mkdir keys/0pad && cd keys/0pad && seq 10001 | xargs touch` and
// `ln keys/id notes.txt`; the host later puts a new secret in keys/id;
// call two, with WithDenyRead(keys), runs `cat notes.txt` and gets it.
//
// Why it works: sandbox/linux/plan_denylinks.go: (*planner).linkedFiles
// walks each denied directory with walkLinked and a budget of
// maxInsideWalk (10,000) entries, and ignores the error past it
// (`_ = walkLinked(...)`): the rest of the directory is taken to hold no
// linked file. filepath.WalkDir goes in lexical order, so keys/0pad/*
// (10,001 entries) use the budget up before keys/id. keys/id is then not
// in the list otherNamesIn looks for, and notes.txt is neither masked nor
// Landlock-denied. The comment there reasons that "a denied directory so
// large where a sandbox wrote is a home's browser profile", but a command
// that may write the directory makes it that large itself, in a second.
//
// Severity: high (a denied file read through its other name: round 50's
// finding again).
//
// Controls: the same attack without the padding is caught (notes.txt is
// masked); keys/id is unreadable by its own name in call two; notes.txt
// is the same inode as keys/id on the host.
//
// Found by red-team round 53.
// Fixed: a denied directory whose walk goes past its budget, or fails,
// makes the plan walk the areas for every file with more than one name
// inside a denied directory (plan_denylinks.go: linkedFiles).
func TestRedteam53DenyLinkPadded(t *testing.T) {
	for _, pad := range []bool{false, true} {
		name := "control-unpadded"
		if pad {
			name = "padded"
		}
		t.Run(name, func(t *testing.T) {
			root := hostDir(t)
			keys := filepath.Join(root, "keys")
			if err := os.Mkdir(keys, 0o755); err != nil {
				t.Fatal(err)
			}
			id := filepath.Join(keys, "id")
			if err := os.WriteFile(id, []byte("placeholder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m := rt50aManager(t)
			script := "ln keys/id notes.txt"
			if pad {
				script = "mkdir keys/0pad && (cd keys/0pad && seq 1 10001 | xargs touch) && " + script
			}
			if _, errOut, code := rt50aExec(t, m, script,
				agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root)); code != 0 {
				t.Fatalf("premise: call 1 failed: %d %q", code, errOut)
			}
			rt53aSameFile(t, id, filepath.Join(root, "notes.txt"))
			if pad {
				ents, err := os.ReadDir(filepath.Join(keys, "0pad"))
				if err != nil || len(ents) <= 10000 {
					t.Fatalf("premise: padding not made: %d %v", len(ents), err)
				}
			}
			const secret = "RT53A-PADDED-SECRET"
			if err := os.WriteFile(id, []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := rt50aExec(t, m, "cat "+id+" && echo DIRECT-READ; echo ---; cat "+filepath.Join(root, "notes.txt"),
				agentbox.WithWorkingDir("/"), agentbox.WithDenyRead(keys))
			t.Logf("call 2: stdout %q stderr %q", out, errOut)
			direct, viaLink, _ := strings.Cut(out, "---")
			if strings.Contains(direct, secret) || strings.Contains(direct, "DIRECT-READ") {
				t.Fatalf("control: the deny on keys/ does not hold for keys/id itself: %q", out)
			}
			if strings.Contains(viaLink, secret) {
				if !pad {
					t.Fatalf("control: round 50's fix does not hold even without padding: %q", viaLink)
				}
				t.Errorf("the denied file %s was read through its other name notes.txt after padding keys/ past 10,000 entries: %q", id, viaLink)
			}
		})
	}
}
