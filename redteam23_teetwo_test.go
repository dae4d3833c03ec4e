//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 23 (stdin relayed by tee, two commands on one pipe):
// newStdinPipe promises that when the caller's pipe has another reader
// ("a second command given the same stdin, a shell's read") each byte
// still reaches one of them only. Its check for "another reader" is
// chunkTaken: whether the chunk tee'd into the program's pipe is still at
// the head of the caller's pipe. Two sandboxed commands given the same
// pipe (a worker pool: `producer | { agentbox exec -- worker & agentbox
// exec -- worker; wait; }`) are two relays, and a relay takes nothing off
// the caller's pipe until its program has read the whole chunk (or ended):
// both relays tee the same head, each program reads all of it from its
// own pipe, and for as long as neither has drained its chunk each relay
// finds the chunk still in the caller's pipe. The window is not "a byte
// both read between two looks" (5–100 ms) but as long as the programs
// take to work through a chunk (up to 4 KiB of jobs).
//
// The test writes 30 job lines into a pipe and closes it, and starts two
// programs reading it line by line (`while read x`, which reads a pipe a
// byte at a time, as the control shows), each a little slowly. Control:
// the same two programs started by os/exec, without a sandbox: every byte
// of the input reaches exactly one of them (lines can split between them,
// but nothing is read twice). Relayed: every job runs in both.
//
// Why it matters: a job queue fed through a pipe to sandboxed workers runs
// each job twice (twice the side effects, or a job meant for one
// sandbox's credentials seen by another), silently; the library and
// `agentbox exec` are both affected, root and unprivileged callers.
//
// Severity: medium (legitimate work broken silently: duplicated input;
// no escape).
//
// A fix would need a relay not to leave a chunk in the caller's pipe
// while another relay may tee the same head: e.g. relays of one pipe
// inode within a process serialised (one of them at a time holds the
// head, and takes each byte off as its program reads it), and for
// separate agentbox processes sharing a pipe, either the same taking off
// at each read (a window of one poll) or a documented limit.
//
// Fixed: relays of one pipe take turns (stdinlock_linux.go): each opens
// its own open file description of the caller's pipe (/proc/self/fd/N)
// and holds flock(LOCK_EX) on it from before it tees a chunk until the
// chunk is settled, so no other relay, in this process or another
// agentbox's, tees the same bytes; waiting for the lock stays
// interruptible by finish (LOCK_NB, growing pauses watching wake).
func TestRedteam23TeeTwoCommandsShareStdin(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	var input strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&input, "job%02d\n", i)
	}
	const worker = `while read x; do echo "$x"; sleep 0.05; done`
	for _, sandboxed := range []bool{false, true} {
		name := "control: two os/exec programs on one pipe"
		if sandboxed {
			name = "two sandboxed programs on one pipe"
		}
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := w.WriteString(input.String()); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var outs [2]bytes.Buffer
			var wg sync.WaitGroup
			for k := range outs {
				cmd := exec.Command("/bin/sh", "-c", worker)
				cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &outs[k], &outs[k]
				wg.Add(1)
				if sandboxed {
					p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(60*time.Second))
					if err != nil {
						t.Fatal(err)
					}
					go func() {
						defer wg.Done()
						if _, err := p.Wait(); err != nil {
							t.Error(err)
						}
					}()
				} else {
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					go func() {
						defer wg.Done()
						if err := cmd.Wait(); err != nil {
							t.Error(err)
						}
					}()
				}
			}
			wg.Wait()
			got := []byte(outs[0].String() + outs[1].String())
			want := []byte(input.String())
			slices.Sort(got)
			slices.Sort(want)
			twice := 0
			for i := 1; i <= 30; i++ {
				job := fmt.Sprintf("job%02d\n", i)
				if strings.Contains(outs[0].String(), job) && strings.Contains(outs[1].String(), job) {
					twice++
				}
			}
			t.Logf("euid %d: first read %d bytes, second %d, of %d; jobs run by both: %d", os.Geteuid(), outs[0].Len(), outs[1].Len(), input.Len(), twice)
			if !bytes.Equal(got, want) {
				t.Errorf("the two readers did not get each byte of the input exactly once: %d bytes read for %d written, %d of 30 jobs run by both\nfirst: %q\nsecond: %q", len(got), len(want), twice, outs[0].String(), outs[1].String())
			}
		})
	}
}
