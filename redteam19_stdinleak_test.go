//go:build linux

package agentbox_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 19 (standard streams): a regular file as stdin is
// relayed by a stdinFile (a dup of the caller's descriptor, a pipe, a kept
// read end, a copy goroutine); stdout and stderr on one open file
// description share one pipe. Many runs with a file as stdin, through
// Start (the program reads part, all, or none; a timeout kills one that
// never reads a large file) and through Wrap (cleanup after Wait), must
// leave no descriptor open and the caller's offset where the program
// stopped. The control: the first runs, which open what the Manager keeps.
func TestRedteam19StdinFileNoLeakManyRuns(t *testing.T) {
	// Not parallel: it counts this process's descriptors.
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	start := func(path, script string, opts ...agentbox.Option) (int64, *agentbox.ExecResult, error) {
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, logf, logf
		pr, err := m.Start(context.Background(), cmd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := pr.Wait()
		off, _ := in.Seek(0, io.SeekCurrent)
		return off, res, err
	}
	wrap := func(path, script string) int64 {
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, logf, logf
		cleanup, err := m.Wrap(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		cleanup()
		off, _ := in.Seek(0, io.SeekCurrent)
		return off
	}
	// Control: the first runs open what the Manager keeps.
	start(small, "read l")
	wrap(small, "read l")
	before := countFDs(t)
	const runs = 40
	for i := 0; i < runs; i++ {
		if off, _, err := start(small, "read l"); err != nil || off != 4 {
			t.Fatalf("Start run %d: offset %d (want 4), %v", i, off, err)
		}
		if off := wrap(small, "read l; read l"); off != 8 {
			t.Fatalf("Wrap run %d: offset %d (want 8)", i, off)
		}
		if off, _, err := start(small, "true"); err != nil || off != 0 {
			t.Fatalf("Start run %d (reads nothing): offset %d (want 0), %v", i, off, err)
		}
	}
	// A program that never reads a 4 MiB stdin, killed by a timeout.
	t0 := time.Now()
	off, res, err := start(big, "sleep 30", agentbox.WithTimeout(300*time.Millisecond))
	t.Logf("timeout run: %v after %v, offset %d, exit %d", err, time.Since(t0), off, res.ExitCode)
	if off != 0 || time.Since(t0) > 5*time.Second {
		t.Errorf("a program killed by its timeout before reading: offset %d (want 0), took %v", off, time.Since(t0))
	}
	// One that reads 1 MiB of it, then is killed.
	off, _, err = start(big, "head -c 1048576 >/dev/null; sleep 30", agentbox.WithTimeout(1500*time.Millisecond))
	t.Logf("partial-read run: %v, offset %d", err, off)
	if off != 1<<20 {
		t.Errorf("a program that read 1 MiB and was killed: the caller's offset is %d, want %d", off, 1<<20)
	}
	time.Sleep(100 * time.Millisecond) // goroutines that close on their way out
	if n := countFDs(t) - before; n > 0 {
		t.Errorf("LEAK: %d descriptors more after %d runs with a file as stdin", n, 3*runs+2)
	}
}
