//go:build linux

package linux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// TestRedteam25MountWatchExchangeWithFile: a deny path deep in a host
// directory shown read-only in /tmp (shown/a/b/.env) is masked, and the
// directories on the way (a, a/b) are plain directories, not pins. The
// host exchanges `a` with a plain file (renameat2 RENAME_EXCHANGE, which
// the README lists as covered). The dir watch wakes and looks: statx of
// shown/a/b/.env now fails with ENOTDIR, and look treats every error but
// ENOENT as "still there", so nothing is killed. The mask went with the
// old `a` (now named `afile`); the name `a` is the host's to fill, and
// the watch asks only for IN_MOVED_FROM, so the host's later `rm a;
// mkdir -p a/b; echo ... > a/b/.env` wakes nothing (no move, no mount
// table change). The sandboxed command then reads the new .env, which
// the user denied. (An ELOOP — `a` replaced by a link to itself — or
// EACCES does the same.)
//
// Severity: low. The host's sequence is deliberate rather than an
// everyday save; but it is deterministic (no race), the watch is silently
// blind for the rest of the run, and the README says a mount "no longer
// at its name" ends the sandbox.
// Fix: in look, treat any statx error on a watched name as gone (or at
// least ENOTDIR/ELOOP/EACCES), and/or statx each watched directory on the
// way too (as the pins in writable roots are), so that a directory on the
// way that is no longer the watched inode is noticed.
//
// Fixed: look counts any failed lookup of a watched name as the mount
// gone (lost, in mountwatch.go), not only ENOENT, so the swap ends the
// sandbox (exit 137, mount-detached) before the host's new tree is there.
func TestRedteam25MountWatchExchangeWithFile(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	marks := hostTempDir(t)
	shown, err := os.MkdirTemp("/tmp", "agentbox-rt25a-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shown)
	if err := os.Chmod(shown, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(shown, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, c := range map[string]string{"a/b/.env": "old-secret", "readme": "control", "afile": "plain"} {
		if err := os.WriteFile(filepath.Join(shown, f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := filepath.Join(shown, "a", "b", ".env")
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{
		Writable: []string{marks},
		Visible:  []string{shown},
		DenyRead: []string{env},
	}}
	script := "cat " + env + " > " + marks + "/before 2>&1; cat " + shown + "/readme > " + marks + "/control 2>&1; touch " + marks + "/started; " +
		"i=0; while [ ! -e " + marks + "/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; " +
		"cat " + env + " > " + marks + "/after 2>&1; exit 0"
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(marks, "started")); err == nil {
			break
		}
		if i > 1500 {
			t.Fatal("the program did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The host: exchange the directory on the way with a plain file, let
	// the watch look, then make the name anew with new content.
	a := filepath.Join(shown, "a")
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, filepath.Join(shown, "afile"), unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(a, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, []byte("NEW-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	read := func(n string) string {
		b, _ := os.ReadFile(filepath.Join(marks, n))
		return strings.TrimSpace(string(b))
	}
	t.Logf("status %+v; before %q control %q after %q", st, read("before"), read("control"), read("after"))
	if read("control") != "control" {
		t.Errorf("control: a plain file in the shown directory was not readable: %q", read("control"))
	}
	if strings.Contains(read("before"), "old-secret") {
		t.Errorf("the deny path was readable at the start")
	}
	if strings.Contains(read("after"), "NEW-SECRET") {
		t.Errorf("ESCAPE: the sandbox read the host's new %s after the host exchanged a directory on the way with a file; the watch did not stop it (status %+v)", env, st)
	}
}
