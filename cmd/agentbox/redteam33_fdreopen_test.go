//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt33ReopenScript opens ARGV[1] (a file the sandbox may only read)
// read-only and its directory O_PATH, then tries to reopen the file for
// writing through the magic links /proc/self/fd/N and
// /proc/self/fd/DIR/NAME (read-write, append, truncate), printing
// OPENED for each that succeeds and refused otherwise; reopening it
// read-only the same way is the control (reread).
const rt33ReopenScript = `
import os, sys
path = sys.argv[1]
fd = os.open(path, os.O_RDONLY)
d = os.open(os.path.dirname(path), os.O_PATH)
name = os.path.basename(path)
for label, link in (("fd", "/proc/self/fd/%d" % fd), ("dir", "/proc/self/fd/%d/%s" % (d, name))):
    for fl in (os.O_RDWR, os.O_WRONLY | os.O_APPEND, os.O_RDONLY | os.O_TRUNC):
        try:
            g = os.open(link, fl)
            if fl & os.O_ACCMODE:
                os.write(g, b"PWNED")
            print("OPENED", label, fl, flush=True)
        except OSError as e:
            print("refused", label, fl, e.errno, flush=True)
    g = os.open(link, os.O_RDONLY)
    print("reread", label, len(os.read(g, 100)) > 0, flush=True)
`

// TestRedteam33ProcFdReopenForWrite: a file the sandbox may read but not
// write (a read-only bind in the full tier) opened read-only, then
// reopened for writing, appending or truncating through /proc/self/fd/N
// and through /proc/self/fd/DIR/NAME of an O_PATH descriptor of its
// directory: the magic links must not upgrade the access. Held
// (passing; full tier as the unprivileged user: EROFS); the read-only
// reopen works (control).
func TestRedteam33ProcFdReopenForWrite(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "ro.yaml", "name: rt33-reopen\nlimits: {max_duration: 30s}\n")
	path := m.file(t, "reopen.py", rt33ReopenScript)
	target := m.file(t, "target.txt", "original\n")
	// The user's own file, writable by mode: only the sandbox refuses.
	if err := os.Chown(target, m.uid, m.gid); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := m.runArgs(t, manifest, 40*time.Second, path, target)
	t.Logf("exit %d stdout %q stderr tail %q", code, out, rt29Tail(errOut, 300))
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Errorf("ESCAPE: the read-only file changed through /proc/self/fd: %q", b)
	}
	if strings.Contains(out, "OPENED") {
		t.Errorf("ESCAPE: a read-only file reopened for writing through /proc/self/fd\n%s", out)
	}
	if code != 0 || strings.Count(out, "reread fd True")+strings.Count(out, "reread dir True") != 2 {
		t.Errorf("control: the read-only reopen failed: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}
