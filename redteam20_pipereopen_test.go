//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// Red-team session 20 (standard streams): an anonymous pipe of a caller
// other than root, handed as Stdin or Stdout, goes to the program as it is
// (streamKind, relayed returns nil), with only its flags, mode and owner
// put back afterwards (sharedFile). But the pipe's inode belongs to the
// caller, and the non-root sandbox runs as the caller: the program reopens
// /proc/self/fd/0 for WRITING (or /proc/self/fd/1 for READING), which the
// kernel allows to the pipe's owner and Landlock allows on pipefs. The
// program then:
//
//   - writes into the caller's own stdin pipe: the bytes stay in the pipe
//     after the sandbox is gone, and whatever reads the caller's stdin next
//     takes them for the caller's input. When that reader is a host shell
//     reading its script from a pipe (`cat ci.sh | bash`, `curl … | sh`,
//     `{ agentbox exec -- cmd; bash; } < pipe`), the program's bytes are run
//     on the host, unsandboxed, as the caller: a full escape;
//   - reads the caller's stdout pipe: output written before the run that
//     the consumer has not read yet (`{ cat ~/.secret; agentbox exec --
//     cmd; } | consumer`) is taken, and lost to the consumer;
//   - changes the pipe's size (F_SETPIPE_SZ), which nothing puts back.
//
// The test hands Start a pipe holding "echo first\n" plus a line the
// program does not read, then gives the rest of the pipe to a host bash,
// as a shell reading its script from the pipe does. The attack writes
// "touch PWNED" into /proc/self/fd/0 (PWNED is in a host directory the
// sandbox cannot write: its own touch fails). Expected: only the
// caller's line reaches bash. Control: a program that reads one line and
// leaves the rest. A second case reads the caller's stdout pipe back.
//
// Severity: high (host command execution for a shell fed from a pipe);
// affects unprivileged callers (a root caller's pipes are relayed through
// agentbox's own).
//
// Fixed: every pipe or FIFO as stdin is relayed through a one-page pipe of
// agentbox's, fed by tee(2) without read-ahead (newStdinPipe); agentbox
// only reads the caller's pipe, and leaves in it what the program did not
// read.
func TestRedteam20PipeStdinWriteBackRunsOnHost(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	pwned := filepath.Join(dir, "PWNED")
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"control: the program reads one line", "read line; echo got=$line"},
		{"the program writes into its stdin pipe", "read line; echo got=$line; touch " + pwned + " 2>/dev/null && echo DIRECT; printf 'touch " + pwned + "\\n' >/proc/self/fd/0 && echo wrote; true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(pwned)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := w.WriteString("first\necho caller-line\n"); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var out bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
			pr, err := m.Start(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Wait()
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v %s", err, res, out.String())
			}
			// The rest of the caller's input goes to a host shell, as
			// `{ agentbox exec -- cmd; bash; } < pipe` does.
			var sh bytes.Buffer
			bash := exec.Command("/bin/bash")
			bash.Stdin, bash.Stdout, bash.Stderr = r, &sh, &sh
			if err := bash.Run(); err != nil {
				t.Fatalf("host bash: %v %s", err, sh.String())
			}
			t.Logf("euid %d; program said %q; host bash said %q", os.Geteuid(), out.String(), sh.String())
			if strings.Contains(out.String(), "DIRECT") {
				t.Fatalf("the sandbox could write %s directly: the test proves nothing", dir)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Errorf("ESCAPE: the program wrote into the caller's stdin pipe and the host shell reading it ran its command (%s exists)", pwned)
			}
			// A root caller's pipe is relayed, and the relay's read-ahead
			// is lost to the caller (a known limit,
			// TestRedteam19RelayedStdinEatsCallerInputAfterWait).
			if !strings.Contains(out.String(), "got=first") || os.Geteuid() != 0 && !strings.Contains(sh.String(), "caller-line") {
				t.Errorf("control: the program reads its line and the caller's next line stays for the caller: %q %q", out.String(), sh.String())
			}
		})
	}
}

// The same pipe handed as Stdout: the program reopens /proc/self/fd/1 for
// reading and takes what the caller wrote into the pipe before the run and
// its consumer has not read yet, and shrinks the pipe (F_SETPIPE_SZ), which
// is not put back. Expected: the consumer reads the caller's earlier
// output and the program's; the pipe's size is unchanged. Control: the
// program's own output arrives.
//
// Fixed: a pipe or FIFO as stdout or stderr is relayed through a pipe of
// agentbox's for every caller (relayed), not only root.
func TestRedteam20PipeStdoutReadBack(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	sizeBefore, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("EARLIER-SECRET\n"); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd := exec.Command("/usr/bin/python3", "-c", `import os, fcntl
try:
    fd = os.open("/proc/self/fd/1", os.O_RDONLY | os.O_NONBLOCK)
    os.write(2, b"stole:" + os.read(fd, 4096))
except OSError as e:
    os.write(2, repr(e).encode())
try:
    fcntl.fcntl(1, 1031, 4096)  # F_SETPIPE_SZ
except OSError as e:
    os.write(2, repr(e).encode())
print("program-output", flush=True)
`)
	cmd.Stdout, cmd.Stderr = w, &errb
	pr, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pr.Wait()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("wait: %v %+v %s", err, res, errb.String())
	}
	sizeAfter, _ := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	w.Close()
	got, _ := io.ReadAll(r)
	t.Logf("euid %d; program's stderr %q; consumer reads %q; pipe size %d -> %d", os.Geteuid(), errb.String(), got, sizeBefore, sizeAfter)
	if !strings.Contains(string(got), "program-output") {
		t.Errorf("control: the program's output reaches the consumer: %q", got)
	}
	if strings.Contains(errb.String(), "EARLIER-SECRET") || !strings.Contains(string(got), "EARLIER-SECRET") {
		t.Errorf("the program read the caller's stdout pipe: it took %q; the consumer got %q", errb.String(), got)
	}
	if sizeAfter != sizeBefore {
		t.Errorf("the program changed the caller's pipe's size from %d to %d, and it stayed", sizeBefore, sizeAfter)
	}
}
