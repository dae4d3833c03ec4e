//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestStdinPipeLeavesUnreadInput: a caller's pipe handed as stdin (Start
// and Wrap, root and not) loses nothing the program does not read, as a
// `while read f; do agentbox exec …; done < pipe` loop needs: the caller
// reads the rest from the same pipe, in order, whether its writer is
// still open or not; and nothing the program writes into its own stdin
// pipe reaches the caller's.
func TestStdinPipeLeavesUnreadInput(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	for _, tc := range []struct {
		name, script, wantOut, wantLeft string
	}{
		{"reads one line", "read x; echo got=$x", "got=1\n", "2\n3\n"},
		{"reads two bytes", "head -c 2", "1\n", "2\n3\n"},
		{"reads nothing", "true", "", "1\n2\n3\n"},
		{"reads all", "cat", "1\n2\n3\n", ""},
		// The program enlarges its one-page pipe and writes into it: the
		// caller gets back, at most, bytes the program had read, never the
		// program's (a root caller's pipe cannot be reopened by nobody).
		{"writes into its stdin pipe", `python3 -c '
import os, fcntl
os.read(0, 2)
print("got=1", flush=True)
try:
    fcntl.fcntl(0, 1031, 65536)
    os.fchmod(0, 0o666)
    fd = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b"INJECT\n")
except OSError:
    pass
'`, "got=1\n", "2\n3\n"},
	} {
		for _, api := range []string{"Start", "Wrap"} {
			for _, open := range []bool{false, true} {
				if open && tc.wantLeft == "" {
					continue // cat would wait for the writer's end
				}
				name := tc.name + "/" + api
				if open {
					name += "/writer open"
				}
				t.Run(name, func(t *testing.T) {
					r, w, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					defer w.Close()
					if _, err := w.WriteString("1\n2\n3\n"); err != nil {
						t.Fatal(err)
					}
					if !open {
						w.Close()
					}
					var out bytes.Buffer
					cmd := exec.Command("/bin/sh", "-c", tc.script)
					cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
					runCmd(t, m, api, cmd)
					if open {
						w.Close()
					}
					left, _ := io.ReadAll(r)
					t.Logf("euid %d: the program said %q; left for the caller %q", os.Geteuid(), out.String(), left)
					if tc.name == "writes into its stdin pipe" && string(left) == "1\n2\n3\n" {
						left = left[2:] // what it took and wrote over: as if it had not read it
					}
					if out.String() != tc.wantOut || string(left) != tc.wantLeft {
						t.Errorf("the program said %q (want %q); the caller read %q after it (want %q)", out.String(), tc.wantOut, left, tc.wantLeft)
					}
				})
			}
		}
	}
}

// runCmd runs cmd sandboxed through api (Start or Wrap) and wants exit 0.
func runCmd(t *testing.T, m *agentbox.Manager, api string, cmd *exec.Cmd) {
	t.Helper()
	if api == "Start" {
		pr, err := m.Start(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := pr.Wait(); err != nil || res.ExitCode != 0 {
			t.Fatalf("wait: %v %+v", err, res)
		}
		return
	}
	cleanup, err := m.Wrap(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Run()
	cleanup()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestStdinPipeLargeTransfer: 8 MiB through a caller's pipe as stdin, and
// out through a caller's pipe as stdout, arrive whole; the rate is logged.
func TestStdinPipeLargeTransfer(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	const size = 8 << 20
	for _, api := range []string{"Start", "Wrap"} {
		t.Run(api, func(t *testing.T) {
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inR.Close()
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer outR.Close()
			go func() {
				defer inW.Close()
				chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
				for n := 0; n < size; n += len(chunk) {
					if _, err := inW.Write(chunk); err != nil {
						return
					}
				}
			}()
			counted := make(chan int64, 1)
			go func() {
				n, _ := io.Copy(io.Discard, outR)
				counted <- n
			}()
			var errb bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", "cat; wc -c >&2")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &errb
			start := time.Now()
			runCmd(t, m, api, cmd)
			outW.Close()
			got := <-counted
			d := time.Since(start)
			t.Logf("euid %d: %d bytes through stdin and stdout in %v (%.0f MiB/s)", os.Geteuid(), got, d, float64(size)/(1<<20)/d.Seconds())
			if got != size || strings.TrimSpace(errb.String()) != "0" {
				t.Errorf("stdout carried %d bytes, want %d; wc -c of the rest of stdin said %q", got, size, errb.String())
			}
		})
	}
}
