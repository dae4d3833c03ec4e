//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 17: a host program hands the wrapped command a file it
// may only read (outside every writable root), opened read-only, as its
// stdin. The descriptor is of the host's mount, not the sandbox's
// read-only root, and Landlock has no right for a file's attributes: the
// command changes the mode of the caller's file (here to 0666, writable by
// every local user, or to 0000), its times, and its extended attributes,
// with no write access given.
//
// The attack must fail: the file's mode, times and attributes stay as
// they were. The control: the command reads the file through stdin, and
// chmod of the same file by its path is refused (read-only root).
//
// The file belongs to the user the sandbox runs as: the caller's own when
// it is unprivileged, nobody's when it is root (whose sandboxes run as
// nobody), as a caller's own files are to its sandbox.
//
// Fixed: a regular file (or named FIFO) handed as a stream is relayed
// through a pipe of agentbox's: the program never holds its descriptor.
func TestRedteam17ReadOnlyStdinAttributesChanged(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	p := filepath.Join(dir, "input.txt")
	if err := os.WriteFile(p, []byte("INPUT-rt17\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `exec python3 -c '
import os, sys
print("READ", os.read(0, 100))
try: os.chmod(sys.argv[1], 0o666); print("PATH-CHMOD")
except OSError as e: print("PATH-CHMOD-ERR", e.errno)
for what, f in (("FCHMOD", lambda: os.fchmod(0, 0o666)), ("FUTIMES", lambda: os.utime(0, (1, 1))), ("FSETXATTR", lambda: os.setxattr(0, "user.rt17", b"x"))):
    try: f(); print(what)
    except OSError as e: print(what + "-ERR", e.errno)
' "$0"`, p)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &errb
	cleanup, err := m.Wrap(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Run()
	cleanup()
	got := out.String()
	t.Logf("\n%s%s", got, errb.String())
	if err != nil {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(got, "READ b'INPUT-rt17") {
		t.Fatalf("control: the command did not read its stdin")
	}
	if strings.Contains(got, "PATH-CHMOD\n") {
		t.Fatalf("control: chmod by path outside the writable roots worked")
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() {
		t.Errorf("the command changed the mode of the file handed read-only as stdin: %v -> %v", before.Mode(), after.Mode())
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the command changed the times of the file handed read-only as stdin: %v -> %v", before.ModTime(), after.ModTime())
	}
	if strings.Contains(got, "FSETXATTR\n") {
		t.Errorf("the command set an extended attribute on the file handed read-only as stdin")
	}
}
