//go:build linux

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam57ReadOnlyFileOtherName: a file kept read-only that lies
// outside the writable roots (a manifest agentbox ran, recorded in
// keptfiles, or any WithDenyWrite path) is read-only by its name only; a
// hard link to it inside a writable root, made by an earlier call that
// could write both, wrote it. Its other names in the writable roots are
// now held read-only too, as those of a protected file inside them are.
//
// Found reading red-team round 57's finding once more (the same gap for
// deny-write paths as the round's for deny-read ones). Fixed:
// sandbox/linux/plan_protect.go (bindReadOnly seeks the other names of
// read-only files outside the writable roots).
func TestRedteam57ReadOnlyFileOtherName(t *testing.T) {
	for _, base := range []string{"/var/tmp", "/tmp"} {
		t.Run(base, func(t *testing.T) {
			dir, err := os.MkdirTemp(base, "rt57-ro-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			_ = os.Chmod(dir, 0o777)
			proj := filepath.Join(dir, "proj")
			manifest := filepath.Join(dir, "agent.yaml")
			if err := os.Mkdir(proj, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(manifest, []byte("name: a\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			m := rt50aManager(t)
			// Call one may write both: it links the manifest into the project.
			if _, errOut, code := rt50aExec(t, m, "ln "+manifest+" .cache-m",
				agentbox.WithWritableRoots(dir), agentbox.WithWorkingDir(proj)); code != 0 {
				t.Fatalf("premise: call 1: %d %q", code, errOut)
			}
			// Call two keeps the manifest read-only and may write the project.
			out, _, _ := rt50aExec(t, m, "echo ok > work.txt && echo WROTE-WORK; echo 'tools: {allow: [\"*\"]}' >> .cache-m && echo WROTE-LINK",
				agentbox.WithWritableRoots(proj), agentbox.WithWorkingDir(proj), agentbox.WithDenyWrite(manifest))
			if !strings.Contains(out, "WROTE-WORK") {
				t.Fatalf("control: the project is not writable: %q", out)
			}
			b, _ := os.ReadFile(manifest)
			if strings.Contains(out, "WROTE-LINK") || strings.Contains(string(b), "tools") {
				t.Errorf("the read-only manifest was written through its other name: %q, now %q", out, b)
			}
		})
	}
}
