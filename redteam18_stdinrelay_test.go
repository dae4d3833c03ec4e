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

// Red-team session 18 (regressions in legitimate work): a shell loop that
// runs one sandboxed command per line of a file,
//
//	while read -r f; do agentbox exec -- echo "$f"; done < list.txt
//
// runs the command for the first line only since agentbox began relaying a
// regular file handed as stdin through a pipe of its own (e8b6406,
// Process.input): the relay's io.Copy reads the caller's file to its end
// at once, whether or not the program reads its stdin, and the caller's
// open file description (shared with the shell) is left at end of file.
// Before, the program got the descriptor and read only what it consumed;
// `while read` loops, `{ head -n1; cmd; } < file` and every command that
// leaves input to the next worked. Reproduced with the CLI: one line of
// three is processed (e625895: all three).
//
// The test hands Start a regular file at offset 4 (after "one\n", as the
// shell's read leaves it) as Stdin, runs `true` (which reads nothing), and
// expects the rest of the file still there for the caller to read. The
// control: a program that reads its stdin gets the whole rest.//
// Fixed: a regular file as stdin goes through a stdinFile, which reads it
// with pread (the caller's offset does not move) and, once the program's
// tree is gone, sets the offset past what the program took from the pipe;
// a named FIFO goes to the program as it is again.
func TestRedteam18StdinFileConsumedPastWhatProgramReads(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	p := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		argv     []string
		wantOut  string // the program's stdout
		wantLeft string // what the caller reads from the file afterwards
	}{
		{"control: the program reads its stdin", []string{"/bin/cat"}, "two\nthree\n", ""},
		{"the program reads nothing", []string{"/bin/true"}, "", "two\nthree\n"},
		{"the program reads one line", []string{"/bin/sh", "-c", "read -r l; echo \"$l\""}, "two\n", "three\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Seek(4, io.SeekStart); err != nil { // the shell's read took "one\n"
				t.Fatal(err)
			}
			out, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command(tc.argv[0], tc.argv[1:]...)
			cmd.Stdin, cmd.Stdout = in, out
			pr, err := m.Start(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Wait()
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v", err, res)
			}
			got, _ := os.ReadFile(out.Name())
			left, _ := io.ReadAll(in)
			t.Logf("program read %q; left for the caller %q", got, left)
			if string(got) != tc.wantOut {
				t.Errorf("program's output %q, want %q", got, tc.wantOut)
			}
			if string(left) != tc.wantLeft {
				t.Errorf("REGRESSION: the caller's stdin file was read past what the program consumed: %q left, want %q (a `while read; do agentbox exec ...; done < file` loop stops after one line)", left, tc.wantLeft)
			}
		})
	}
}
