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

// Red-team session 19 (standard streams): a regular file handed to Start
// as stdin goes through a stdinFile, which, once the program's tree is
// gone, sets the caller's offset to start + written - (bytes left in the
// pipe, TIOCINQ on a read end agentbox keeps). The count assumes only
// agentbox writes into that pipe. But the program's read end is chmod 0666
// (openByName) and belongs to the caller: the program reopens
// /proc/self/fd/0 for writing and puts bytes back into its own stdin. Each
// byte it writes is taken for a byte it did not read, and the caller's
// offset is moved back, before where the program started: a
// `while read f; do agentbox exec ...; done < list` loop processes again
// lines it already handled (or never ends).
//
// The attack: the caller's file is "one\ntwo\nthree\n" at offset 8 (after
// two lines); the program reads its stdin to the end ("three\n") and
// writes 14 bytes into /proc/self/fd/0. Expected: the caller's offset is
// past what the program read (end of file, nothing left). The control
// reads its stdin and writes nothing.//
// Fixed: what the program took is bounded by what went into the pipe, so
// the offset never moves back before where it started (stdinFile.finish),
// and a stdinFile's pipe is readable by name only (0444). Bytes written
// back that equal what was read cannot be told from bytes never read, and
// leave the offset where a program that did not read them would.
func TestRedteam19StdinWriteBackRewindsCallerOffset(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	p := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"control: the program reads its stdin", "cat >/dev/null; echo ok"},
		{"the program writes back into its stdin", "cat >/dev/null; printf 0123456789abcd >/proc/self/fd/0 && echo wrote; echo ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Seek(8, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			out, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
			pr, err := m.Start(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Wait()
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v", err, res)
			}
			got, _ := os.ReadFile(out.Name())
			off, _ := in.Seek(0, io.SeekCurrent)
			left, _ := io.ReadAll(in)
			t.Logf("program said %q; caller's offset %d, left %q", got, off, left)
			// What it wrote back is what it read: the same as leaving it
			// unread, which any program may do. Before where it started,
			// no program could take the caller.
			if off < 8 {
				t.Errorf("CORRUPTED: the program moved the caller's stdin offset back to %d (it started at 8 and read to the end): the caller reads %q again", off, left)
			}
		})
	}
}

// The same through Wrap, whose stdinFile pipe is not made 0666 but belongs
// to the caller: a non-root caller's sandbox runs as the pipe's owner and
// reopens it for writing all the same (a root caller's runs as nobody, and
// cannot).
func TestRedteam19StdinWriteBackRewindsCallerOffsetWrap(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	p := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"control: the program reads its stdin", "cat >/dev/null; echo ok"},
		{"the program writes back into its stdin", "cat >/dev/null; printf 0123456789abcd >/proc/self/fd/0 && echo wrote; echo ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Seek(8, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			out, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
			cleanup, err := m.Wrap(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			err = cmd.Run()
			cleanup()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out.Name())
			off, _ := in.Seek(0, io.SeekCurrent)
			left, _ := io.ReadAll(in)
			t.Logf("program said %q; caller's offset %d, left %q", got, off, left)
			// What it wrote back is what it read: the same as leaving it
			// unread, which any program may do. Before where it started,
			// no program could take the caller.
			if off < 8 {
				t.Errorf("CORRUPTED: the program moved the caller's stdin offset back to %d (it started at 8 and read to the end): the caller reads %q again", off, left)
			}
		})
	}
}
