//go:build linux

package attack_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam40ReducedTmpLeft makes the reduced tier's private TMPDIR
// impossible for agentbox to remove: the program makes a directory there,
// puts a file in it and takes every permission off it (chmod 0). The
// program runs as the caller (no user namespace), so the directory is the
// caller's and the chmod is allowed.
//
// agentbox removes the private directory with os.RemoveAll when it
// releases the sandbox (releaseHolds; removeOrphanedTmp in the init).
// RemoveAll cannot open a directory without search and read permission,
// gives up, and the whole agentbox-tmp-* directory, with what the program
// wrote in it, stays in the host's temporary directory after the run,
// where the full tier's private /tmp (a tmpfs of its mount namespace)
// vanishes with the sandbox. The README says the directory is "removed
// with the sandbox". Every run can leave one more, with up to the disk's
// worth of data (no quota), readable by the user's later programs and by
// the next commands' host-side tools, and nothing reports it. The
// control: the same run without the chmod leaves nothing behind.
//
// Severity: low (a leak of disk and of the command's files into the host's
// temporary directory; no boundary crossed). Found by red-team round 40;
// fixed: removeOwnedTree gives every directory below its owner's
// permissions back (each opened beneath the directory without following a
// link) where removing fails for want of them, and removes again.
func TestRedteam40ReducedTmpLeft(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	t.Parallel()
	run := func(lock bool) []string {
		host := newDirIn(t, baseDir, 0o700)
		t.Cleanup(func() {
			// Give the permissions back so the test's own cleanup works.
			_ = filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
				if d != nil && d.IsDir() {
					_ = os.Chmod(p, 0o700)
				} else if err != nil {
					_ = os.Chmod(p, 0o700)
				}
				return nil
			})
			_ = os.RemoveAll(host)
		})
		script := `set -u
mkdir -p "$TMPDIR/keep/sub" && echo data >"$TMPDIR/keep/sub/f" && echo wrote
`
		if lock {
			script += `chmod 0 "$TMPDIR/keep" && echo locked
`
		}
		refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o755), "/bin/sh", []string{"-c", script},
			"TMPDIR="+host)
		if res == nil {
			t.Fatalf("agentbox refused: %s", refused)
		}
		out := string(res.Stdout)
		if !strings.Contains(out, "wrote") || (lock && !strings.Contains(out, "locked")) {
			t.Fatalf("the program did not run as meant (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		left, _ := filepath.Glob(filepath.Join(host, "agentbox-tmp-*"))
		return left
	}
	if left := run(false); len(left) != 0 {
		t.Fatalf("control: a plain run left its private TMPDIR behind: %q", left)
	}
	if left := run(true); len(left) != 0 {
		t.Errorf("LEAK: the reduced tier's private TMPDIR stayed in the host's temporary directory after the run: %q", left)
	}
}
