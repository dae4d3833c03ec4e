//go:build linux

package agentbox_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 20 (standard streams, a descriptor shared between
// streams): a regular file opened read-write and handed as both Stdin and
// Stdout (one open file description: `cmd <>file >&0`, a Go caller's
// os.OpenFile(O_RDWR) as both) is read by a stdinFile with pread, which
// does not move the shared offset while the program runs, and written by
// Process.output's relay through a dup of the same description, at that
// offset. What the program writes therefore lands where the program's
// input started, over the bytes it read and those it did not, instead of
// after what it read; then stdinFile.finish moves the offset back to just
// past what the program read, so the caller's next write goes over the
// program's output, and the caller's next read returns bytes the program
// itself wrote. (sameStream joins Stdout and Stderr on one description;
// nothing looks at Stdin beside them.)
//
// The file is "line1\nline2\nline3\n"; the program reads one line and
// prints "got-line1". Expected, as os/exec gives it (the control, run
// unsandboxed): the output right after the line read
// ("line1\ngot-line1\n3\n") and the caller's offset after the output (16).
// With agentbox: "got-line1\n2\nline3\n", offset 6.
//
// Severity: low (corruption of the caller's file in legitimate use; the
// program gains nothing); affects root and unprivileged callers.
//
// Fixed: output into the open file description that is also the
// stdinFile's goes through an offsetWriter (pwrite after what the program
// took, plus what it wrote), and finish, after the output's copies, sets
// the offset past both.
func TestRedteam20ReadWriteFileAsStdinAndStdoutCorrupted(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	for _, tc := range []struct {
		name      string
		sandboxed bool
	}{
		{"control: os/exec, unsandboxed", false},
		{"agentbox Start", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name[:7])
			if err := os.WriteFile(p, []byte("line1\nline2\nline3\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o666); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd := exec.Command("/bin/sh", "-c", "read l; echo got-$l")
			cmd.Stdin, cmd.Stdout = f, f
			if tc.sandboxed {
				pr, err := m.Start(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				if res, err := pr.Wait(); err != nil || res.ExitCode != 0 {
					t.Fatalf("wait: %v %+v", err, res)
				}
			} else if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			off, _ := f.Seek(0, io.SeekCurrent)
			b, _ := os.ReadFile(p)
			t.Logf("file %q, caller's offset %d", b, off)
			if string(b) != "line1\ngot-line1\n3\n" || off != 16 {
				t.Errorf("CORRUPTED: the program's output is not after what it read: file %q, caller's offset %d (want %q, 16, as os/exec gives)", b, off, "line1\ngot-line1\n3\n")
			}
		})
	}
}
