//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam57TmpDenyHardLink: a deny-read file in the host's /tmp is
// read inside the full-tier sandbox through another name (a hard link) in
// the writable root, which every other deny path's other names are masked
// against (red-team round 50).
//
// The attack: a first call, with a directory of the host's /tmp writable
// (/tmp/rt57a-*/, holding the project proj/ and area/token), runs
// `ln /tmp/rt57a-*/area/token .cache-x` in the project. The host then puts a new
// secret in token (in place). The second call has the project
// (/tmp/rt57a-*/proj) writable and WithDenyRead(/tmp/rt57a-*/area/token); it runs `cat .cache-x` and gets the
// secret. The control, the same file in a directory outside /tmp
// (/var/tmp/...), is masked through its other name as it must be. The
// same holds with the directory holding token denied (WithDenyRead(area)).
//
// Why it works: sandbox/linux/plan_protect.go: (*planner).mask now returns
// at once for a deny path in a private area (/tmp, /dev/shm, /run) that is
// not in a writable root, a shown host path or a scratch directory ("the
// host file never shows"), before it notes a file with more than one name
// in b.deniedLinked (or a denied directory in b.deniedDirs). So plan_denylinks.go: maskOtherNames (linkedFiles)
// never looks for the other names of a denied file in /tmp, and the hard
// link inside the writable root — which Landlock grants whole — is left
// readable and writable. The host's /tmp file is hidden, its contents are
// not. (A project in /tmp is common: scratch checkouts, CI workspaces.)
//
// Severity: high (a deny-read file's contents read in the sandbox).
//
// Found by red-team round 57. Fixed: sandbox/linux/plan_protect.go (a deny
// path in a private area, given no mount, is still recorded for the walk
// for its other names: noteLinked).
func TestRedteam57TmpDenyHardLink(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		control    bool
		denyDir    bool // deny area/, the directory holding token
	}{
		{name: "control-var-tmp", base: "/var/tmp", control: true},
		{name: "control-var-tmp-dir", base: "/var/tmp", control: true, denyDir: true},
		{name: "host-tmp", base: "/tmp"},
		{name: "host-tmp-dir", base: "/tmp", denyDir: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, err := os.MkdirTemp(tc.base, "rt57a-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(top) })
			root, area := filepath.Join(top, "proj"), filepath.Join(top, "area")
			for _, d := range []string{top, root, area} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			token := filepath.Join(area, "token")
			if err := os.WriteFile(token, []byte("harmless-1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m := rt50aManager(t)
			// Call 1: the whole area writable, no deny: the command links
			// token into the project.
			out, errOut, code := rt50aExec(t, m, "ln "+token+" .cache-x && cat .cache-x",
				agentbox.WithWritableRoots(top), agentbox.WithWorkingDir(root))
			if code != 0 || !strings.Contains(out, "harmless-1") {
				t.Fatalf("premise: call 1 could not link the token: %d %q %q", code, out, errOut)
			}
			var ti, li unix.Stat_t
			if err := unix.Stat(token, &ti); err != nil {
				t.Fatal(err)
			}
			if err := unix.Stat(filepath.Join(root, ".cache-x"), &li); err != nil {
				t.Fatalf("premise: no link on the host: %v", err)
			}
			if ti.Ino != li.Ino || ti.Nlink != 2 {
				t.Fatalf("premise: .cache-x is not another name of token")
			}
			// The host puts a secret in the token, in place.
			f, err := os.OpenFile(token, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("s3cret-57a\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
			deny := token
			if tc.denyDir {
				deny = area
			}
			opts := []agentbox.Option{agentbox.WithWritableRoots(root), agentbox.WithWorkingDir(root), agentbox.WithDenyRead(deny)}
			// Legitimate work in the project keeps working.
			out, errOut, code = rt50aExec(t, m, "echo ok > work.txt && cat work.txt", opts...)
			if code != 0 || !strings.Contains(out, "ok") {
				t.Fatalf("control: ordinary work in the project failed: %d %q %q", code, out, errOut)
			}
			out, errOut, _ = rt50aExec(t, m, "cat "+token+" 2>&1; echo ---; cat .cache-x 2>&1; echo done", opts...)
			t.Logf("call 2: %q %q", out, errOut)
			if !strings.Contains(out, "done") {
				t.Fatalf("the attack did not run: %q %q", out, errOut)
			}
			if strings.Contains(out, "s3cret-57a") {
				t.Errorf("the deny-read file %s was read through its other name .cache-x in the writable root: %q", token, out)
			}
		})
	}
}
