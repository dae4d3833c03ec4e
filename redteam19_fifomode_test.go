//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 19 (standard streams): a named FIFO handed to Start as
// stdin goes to the program as it is (266df84), its mode and owner put
// back once the program's tree is gone. While it runs, the program, as the
// FIFO's owner (a non-root caller's sandbox runs as the caller), can
// fchmod 0666 its stdin: the caller's private FIFO (0600)
// is then open to every host user, who can read the caller's stream or
// write into it, or receive what the program writes into it (a channel out
// of a sandbox whose network is off), for as long as the program runs.
//
// Expected: the FIFO's mode is 0600 while the program runs. The control:
// the program reads its stdin through the FIFO.
//
// Fixed (round 20): a named FIFO, like every pipe, is relayed through a
// pipe of agentbox's without read-ahead (newStdinPipe): the program never
// holds the FIFO, and its mode stays 0600 while it runs.
func TestRedteam19FIFOStdinChmodWhileRunning(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"control: the program reads through the FIFO", "head -c 3; sleep 1"},
		{"the program fchmods its stdin FIFO", "python3 -c 'import os; os.fchmod(0, 0o666); print(\"chmodded\")'; sleep 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "fifo")
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("abc")); err != nil {
				t.Fatal(err)
			}
			out, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = f, out, out
			pr, err := m.Start(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			during := st.Mode().Perm()
			if _, err := pr.Wait(); err != nil {
				t.Fatal(err)
			}
			st, _ = os.Stat(p)
			said, _ := os.ReadFile(out.Name())
			t.Logf("program said %q; FIFO mode during the run %o, after %o", said, during, st.Mode().Perm())
			if st.Mode().Perm() != 0o600 {
				t.Errorf("EXPOSED: the caller's 0600 FIFO was %o after the run: any host user could open it", st.Mode().Perm())
			}
			if during != 0o600 {
				t.Errorf("EXPOSED: the FIFO was %o while the program ran", during)
			}
		})
	}
}
