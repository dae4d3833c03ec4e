//go:build linux

package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Red team 15: the log's directory reached through a symbolic link that
// another user planted in a sticky, world-writable directory (/tmp). The
// location check lets a sticky directory on the way be writable by others
// because "they cannot rename what is not theirs there", but the link is
// theirs: its owner may replace it at will (unlink or rename over it), so
// the directory the log lives in is whatever that user says, from one
// moment to the next. checkLocation judges the sticky directory and the
// link's target, never the link's owner.

// TestRedteam15CheckLocationStickyLink: checkLocation must refuse a path
// whose way passes through a link another user owns in a sticky directory.
//
// Fixed: checkLocation refuses a link on the way that another user (not
// root) owns in a directory others may write (judgeLink).
func TestRedteam15CheckLocationStickyLink(t *testing.T) {
	r14fLocationCases(t, func(uid, gid int, base string, mkdir func(string, os.FileMode, int) string) []r14fCase {
		return []r14fCase{
			{"control: own link in a sticky directory", func(t *testing.T) (string, string) {
				real := mkdir("creal", 0o700, -1)
				sticky := mkdir("csticky", 0o777|os.ModeSticky, -1)
				theirs := mkdir("ctheirs", 0o777, uid)
				hop := filepath.Join(sticky, "logs")
				if err := os.Symlink(real, hop); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(hop, "a.log"), "ln -s " + theirs + " " + sticky + "/new && mv -T " + sticky + "/new " + hop
			}, false},
			{"another user's link in a sticky directory", func(t *testing.T) (string, string) {
				real := mkdir("real", 0o700, -1)
				sticky := mkdir("sticky", 0o777|os.ModeSticky, -1)
				theirs := mkdir("theirs", 0o777, uid)
				hop := filepath.Join(sticky, "logs")
				if err := os.Symlink(real, hop); err != nil {
					t.Fatal(err)
				}
				if err := os.Lchown(hop, uid, gid); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(hop, "a.log"), "ln -s " + theirs + " " + sticky + "/new && mv -T " + sticky + "/new " + hop
			}, true},
		}
	})
}

// TestRedteam15StickyLinkSwapVerify: the whole attack. Root's log is opened
// through agentbox-ci's link in a sticky directory (accepted today); while
// the log is open agentbox-ci points the link at its own directory, where
// it put a log of its own making (a chain anyone can compute). The writer's
// checkpoints then land in agentbox-ci's directory, and `verify` of the
// log's path reports agentbox-ci's log intact: the state directory's
// checkpoints are filed under the path the link resolved to at write time,
// which verify no longer reaches.
//
// Fixed: Open refuses the location (judgeLink), and a log that is opened
// has its lock and checkpoints opened by its resolved path (l.abs), not
// through the links of the path it was named by.
func TestRedteam15StickyLinkSwapVerify(t *testing.T) {
	uid, gid := r14fOther(t)
	if b, err := os.ReadFile("/proc/sys/fs/protected_symlinks"); err == nil {
		t.Logf("fs.protected_symlinks = %s", b)
	}
	base, err := os.MkdirTemp("", "r15b-sticky-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, mode os.FileMode, owner int) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		if owner >= 0 {
			if err := os.Chown(d, owner, gid); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	real := mk("real", 0o700, -1)
	sticky := mk("sticky", 0o777|os.ModeSticky, -1)
	theirs := mk("theirs", 0o777, uid)
	hop := filepath.Join(sticky, "logs")
	// agentbox-ci plants the link before root's first run.
	if err := r14fAs(t, "ln -s "+real+" "+hop); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(hop, "a.log")

	// What agentbox-ci forges: a log of its own, chained (no key needed),
	// made here with another state directory and handed over.
	forger := testEnv{dir: t.TempDir(), state: filepath.Join(t.TempDir(), "fstate"), path: filepath.Join(t.TempDir(), "f.log")}
	forger.write(t, 2, Options{})
	forged, err := os.ReadFile(forger.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(theirs, "a.log"), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(theirs, "a.log"), uid, gid); err != nil {
		t.Fatal(err)
	}

	l, err := Open(path, Options{StateDir: state, Logger: testLogger(t)})
	if err != nil {
		t.Logf("Open refused the location: %v", err)
		return // the attack failed: the location was refused
	}
	for i := range 5 {
		if err := l.Append(context.Background(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The swap, while root's writer has the log open.
	if err := r14fAs(t, "ln -s "+theirs+" "+sticky+"/new && mv -T "+sticky+"/new "+hop); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Logf("Close: %v", err)
	}

	// Control: root's real log is intact and signed.
	rep, err := Verify(filepath.Join(real, "a.log"), VerifyOptions{StateDir: state})
	if err != nil || !rep.OK || rep.Entries != 5 {
		t.Fatalf("control: verify of the real log: %+v %v", rep, err)
	}
	if _, err := os.Lstat(filepath.Join(theirs, "a.log"+CheckpointSuffix)); err == nil {
		t.Errorf("attack succeeded: root's writer created its checkpoints in %s, agentbox-ci's directory", theirs)
		// agentbox-ci's to remove, as it is its directory.
		if err := r14fAs(t, "rm -f "+filepath.Join(theirs, "a.log"+CheckpointSuffix)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = Verify(path, VerifyOptions{StateDir: state})
	if err == nil && rep.OK {
		t.Errorf("attack succeeded: verify %s reports agentbox-ci's forged log intact (%d entries, %d checkpoints); root's log of 5 entries is elsewhere", path, rep.Entries, rep.Checkpoints)
	}
}
