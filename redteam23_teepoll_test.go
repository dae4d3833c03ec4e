//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 23 (stdin relayed by tee, a relay that polls): the
// program's stdin pipe holds one page, so the relay (awaitFor) takes
// POLLOUT ("not full") for "empty". A program may make its stdin pipe
// larger (fcntl(0, F_SETPIPE_SZ, 65536): no permission needed, any
// program, root's sandbox as nobody included). Then POLLOUT comes while
// the chunk is still unread, and awaitFor asks "empty?" in steps of 1 ms:
// a poll, an ioctl and a sleep a thousand times a second, for as long as
// the program leaves its input unread (a daemon, `sleep`, a program
// waiting for its network), up to the timeout.
//
// The test starts a program that enlarges its stdin pipe and sleeps, with
// a caller's pipe holding a line, and measures agentbox's own CPU time
// (the test process) over 3 s. Control: the same program without the
// F_SETPIPE_SZ (the relay then waits in poll, a look per 100 ms). Seen:
// about 200 ms of CPU per 3 s (7 % of a core) against 6 ms: each such
// sandbox costs the caller's process a few % of a core, so some tens of
// them (agents run commands in parallel) take a core from the host.
// Not a sandbox escape.
//
// Severity: low (CPU cost in the caller chosen by the program; both root
// and unprivileged callers).
//
// A fix: put the program's pipe back to one page when its size changed
// (F_GETPIPE_SZ on keep, then F_SETPIPE_SZ: it holds one chunk at most,
// unless the program wrote into it), or, when POLLOUT does not mean
// "empty", look again with the growing steps chunkTaken uses
// (checkFirst..checkMax) rather than every millisecond.
//
// Fixed: when the program's pipe is "not full" but not empty, the relay
// puts it back to one page (F_SETPIPE_SZ, enlarged), so that poll again
// waits for "empty", and pauses 1 ms growing to 100 ms before it looks
// again (for a pipe that cannot be narrowed or is enlarged again).
func TestRedteam23TeeEnlargedStdinPipeBusyPoll(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	measure := func(t *testing.T, enlarge string) time.Duration {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if _, err := w.WriteString("a line the program does not read yet\n"); err != nil {
			t.Fatal(err)
		}
		script := `python3 -c '
import fcntl, time
` + enlarge + `
print("ready", flush=True)
time.sleep(5)
'`
		var out bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
		p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // started, the pipe enlarged
		c0 := cpu()
		time.Sleep(3 * time.Second)
		used := cpu() - c0
		res, err := p.Wait()
		if err != nil || res.ExitCode != 0 || out.String() != "ready\n" {
			t.Fatalf("the program: %v, %+v, output %q", err, res, out.String())
		}
		// The line is still there for the caller: nothing was lost.
		r.SetReadDeadline(time.Now().Add(time.Second))
		buf := make([]byte, 100)
		n, _ := r.Read(buf)
		if string(buf[:n]) != "a line the program does not read yet\n" {
			t.Errorf("left in the caller's pipe: %q", buf[:n])
		}
		return used
	}
	idle := measure(t, "pass")
	enlarged := measure(t, "fcntl.fcntl(0, 1031, 1 << 16)  # F_SETPIPE_SZ")
	t.Logf("euid %d: agentbox's CPU over 3 s while the program leaves its stdin unread: %v (control), %v (stdin pipe enlarged)", os.Geteuid(), idle, enlarged)
	if enlarged > 60*time.Millisecond && enlarged > 5*idle {
		t.Errorf("the relay of a program that enlarged its stdin pipe and does not read it costs %v of CPU per 3 s (control %v): a busy 1 ms poll", enlarged, idle)
	}
}
