//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 22 (standard streams, stdin relayed by tee): a pipe
// handed as stdin is relayed without read-ahead (newStdinPipe): tee(2)
// copies the next chunk of the caller's pipe into the program's one-page
// pipe and leaves it in the caller's; once the program has read it all,
// teeLoop takes "that chunk" off the caller's pipe by splicing s.last
// bytes to /dev/null. That assumes nobody else reads the caller's pipe
// meanwhile. When another reader does (a second command given the same
// stdin, a host process of the pipeline, a shell's `read`), two things
// go wrong that cannot happen without agentbox, where every byte of a
// pipe goes to exactly one reader:
//
//   - duplication: the chunk reaches both the program (through tee) and
//     the other reader (which read it off the caller's pipe);
//   - loss: the discard then takes s.last bytes that came after, which
//     neither the program nor the other reader ever sees.
//
// The test fills the caller's pipe with "AAAA\n" (writer kept open),
// starts a program that waits a second and then reads, reads "AAAA\n"
// itself as a second reader meanwhile, writes "BBBB\n", and later
// "CCCC\n". Without agentbox the program would read "BBBB\n" and
// "CCCC\n" (the control is the same sequence when the program reads a
// regular pipe of its own fed by the test: every line is seen once).
// Expected: every line written reaches exactly one of the two readers.
//
// Severity: low (data lost or duplicated between concurrent readers of
// one pipe, which is racy anyway, but where agentbox turns "one reader
// gets each line" into "a line is read by both, a later one by none");
// root and unprivileged callers.
//
// A fix would need the discard to take off the caller's pipe only the
// bytes tee copied: e.g. check, before discarding, that the caller's pipe
// still starts with the chunk (compare a peek by tee into a scratch pipe),
// or stop relaying (give the program EOF or an error) once another reader
// has been seen to take bytes (FIONREAD of the caller's pipe smaller than
// s.last).
//
// Fixed: the relay keeps a copy of the chunk it put in the program's pipe
// and takes off the caller's pipe only what is still there of it (gone,
// takeRead); while the program has not read the chunk it looks every few
// ms whether another reader took some, and then takes the unread part
// back out of the program's pipe (pullBack).
func TestRedteam22TeeStdinSharedPipeLosesData(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	script := `python3 -c '
import os, time, select
time.sleep(1.5)
got = b""
while True:
    r, _, _ = select.select([0], [], [], 2)
    if not r:
        break
    d = os.read(0, 100)
    if not d:
        break
    got += d
print("program got=%r" % got.decode())
'`
	for _, relayed := range []bool{false, true} {
		name := "control: a plain reader (os/exec-like copy)"
		if relayed {
			name = "a caller's pipe relayed by tee"
		}
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			if _, err := w.WriteString("AAAA\n"); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Stdout, cmd.Stderr = &out, &out
			if relayed {
				cmd.Stdin = r
			} else {
				// The control: the program's stdin is a pipe the test
				// itself feeds with what it does not read.
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer pr.Close()
				defer pw.Close()
				cmd.Stdin = pr
				go func() {
					time.Sleep(500 * time.Millisecond)
					buf := make([]byte, 100)
					for i := 0; i < 2; i++ {
						time.Sleep(600 * time.Millisecond)
						n, _ := r.Read(buf)
						pw.Write(buf[:n])
					}
					pw.Close()
				}()
			}
			p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // the relay has tee'd "AAAA\n"
			var mine string
			if relayed {
				buf := make([]byte, 100)
				n, _ := r.Read(buf) // a second reader of the caller's pipe
				mine = string(buf[:n])
			} else {
				mine = "AAAA\n" // the control's second reader took it, unread by the program
				buf := make([]byte, 100)
				n, _ := r.Read(buf)
				if string(buf[:n]) != mine {
					t.Fatalf("control: read %q", buf[:n])
				}
			}
			w.WriteString("BBBB\n")
			time.Sleep(2 * time.Second) // the program has read its chunk by now
			w.WriteString("CCCC\n")
			w.Close()
			if _, err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			var left bytes.Buffer
			r.SetReadDeadline(time.Now().Add(time.Second))
			left.ReadFrom(r)
			prog := out.String()
			t.Logf("euid %d: the second reader got %q; %s; left in the caller's pipe %q", os.Geteuid(), mine, strings.TrimSpace(prog), left.String())
			all := mine + prog + left.String()
			for _, line := range []string{"AAAA", "BBBB", "CCCC"} {
				if c := strings.Count(all, line); c != 1 {
					t.Errorf("%s was read %d times by the two readers (want exactly once): second reader %q, %s, left %q", line, c, mine, strings.TrimSpace(prog), left.String())
				}
			}
		})
	}
}
