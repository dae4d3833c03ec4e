//go:build linux

package attack_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam27PlantedRepoFIFOHangsSweep: after every command agentbox
// looks, unconfined on the host, at the repositories the command planted
// in its writable roots (sweepNewRepos -> riskyGitDir). It refuses a
// config that is a symbolic link, but reads it with readNoFollow, a
// blocking open(2) without O_NONBLOCK and without checking that it is a
// regular file. A command that leaves sub/.git/{HEAD,objects,refs} and
// a FIFO named sub/.git/config makes the host's sweep block forever in
// open(2) waiting for a writer: Exec never returns, whatever the caller's
// context says (the command is already dead), and the goroutine and its
// OS thread leak. The same holds for other host-side reads of files the
// command could shape (a .git that is a FIFO read by os.ReadFile in
// gitDirOf, or a HEAD read by the walk, were not checked here).
// Control: the same run writes the project.
//
// Severity: medium (a sandboxed command hangs its host caller — an agent
// harness — for good; no escape). Both root and unprivileged callers.
//
// Fix: open every file the host-side scans read with O_NONBLOCK|O_NOFOLLOW
// (beneath the root, RESOLVE_NO_SYMLINKS) and fstat it: anything but a
// regular file of bounded size is "risky, could not be read" without a
// read; bound the sweep by the caller's context.
//
// Fixed: every host-side read of a file in a writable root (readNoFollow,
// readFollow, scanAccess.read: readBounded) opens with O_NONBLOCK, fstats
// and refuses anything but a regular file of at most 1 MiB; the FIFO
// config makes the repository risky ("not a regular file"), quarantined.
// The sweep does not stop at the caller's context: it runs after a
// timeout too, and is bounded without it.
func TestRedteam27PlantedRepoFIFOHangsSweep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, fifo string }{
		{"config", "sub/.git/config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newRepo(t)
			ps := []probe{
				control("write_source", "write:"+w+"/main.txt", ""),
				control("mkdir_sub", "mkdir:"+w+"/sub", ""),
				control("mkdir_git", "mkdir:"+w+"/sub/.git", ""),
				control("head", "write:"+w+"/sub/.git/HEAD", ""),
				control("objects", "mkdir:"+w+"/sub/.git/objects", ""),
				control("refs", "mkdir:"+w+"/sub/.git/refs", ""),
				control("fifo", "mkfifo:"+w+"/"+tc.fifo, ""),
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			type ret struct {
				res *agentbox.ExecResult
				err error
			}
			done := make(chan ret, 1)
			go func() {
				res, err := ciMgr.ExecArgs(ctx, attackerBin, probeArgs(ps), agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(w))
				done <- ret{res, err}
			}()
			select {
			case r := <-done:
				if r.err != nil {
					t.Fatalf("exec: %v", r.err)
				}
				o := parseOutput(r.res.Stdout)
				checkProbes(t, o, ps)
				if b, _ := os.ReadFile(filepath.Join(w, "main.txt")); len(b) == 0 {
					t.Errorf("control: the run did not write the project")
				}
				t.Logf("violations: %+v", r.res.Violations)
			case <-time.After(60 * time.Second):
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				where := "elsewhere"
				if bytes.Contains(buf, []byte("readNoFollow")) && bytes.Contains(buf, []byte("riskyGitDir")) {
					where = "in sweepNewRepos -> riskyGitDir -> readNoFollow"
				}
				// Unblock the host's open(2) so that the test process can end.
				go func() {
					if f, err := os.OpenFile(filepath.Join(w, tc.fifo), os.O_WRONLY, 0); err == nil {
						f.Close()
					}
				}()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
				}
				t.Errorf("HANG: Exec did not return 60s after its 30s context: the host-side sweep blocks opening the FIFO %s the command planted (blocked %s)", tc.fifo, where)
			}
		})
	}
}
