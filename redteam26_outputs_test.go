//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// Red-team session 26 (output and input plumbing). Helpers shared by the
// tests of this file.

// rt26Pipe is a caller's pipe made with pipe2(2) and no flags: both ends
// blocking, as a shell's `cmd | agent` hands them.
func rt26Pipe(t *testing.T) (r, w int, wf *os.File) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	wf = os.NewFile(uintptr(p[1]), "caller-stdout") // blocking: not pollable; owns p[1]
	t.Cleanup(func() { unix.Close(p[0]); wf.Close() })
	return p[0], p[1], wf
}

// rt26Drain reads what the pipe r holds now, without blocking.
func rt26Drain(t *testing.T, r int) int {
	t.Helper()
	total := 0
	buf := make([]byte, 1<<16)
	for {
		n, err := unix.Read(r, buf)
		if n <= 0 || err != nil {
			return total
		}
		total += n
	}
}

func rt26GetFL(t *testing.T, fd int) int {
	t.Helper()
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// TestRedteam26ExecCapHostileWriters: a command run by Exec with
// WithMaxOutputBytes(4096) writes far more than that, from several
// processes at once sharing its stdout pipe, in many one-byte writes,
// through /proc/self/fd/1 and /dev/stderr reopened by name, and from a
// grandchild that leaves the session (setsid) and keeps writing after the
// program has exited. The attack would be agentbox holding more than the
// cap in memory, or Exec never returning while the grandchild writes.
// Held in session 26: Stdout and Stderr hold at most the cap, Truncated
// is set, and Exec returns once the program is gone (the grandchild dies
// with the tree). Control: a small output is captured whole with the same
// cap. Kept: earlier rounds capped one writer only.
func TestRedteam26ExecCapHostileWriters(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	const max = 4096
	script := `
for i in 1 2 3 4; do ( j=0; while [ $j -lt 3000 ]; do printf x; j=$((j+1)); done ) & done
( j=0; while [ $j -lt 1500 ]; do printf y > /proc/self/fd/1; printf z > /dev/stderr; j=$((j+1)); done ) &
wait
setsid sh -c 'while :; do printf late; printf late >&2; done' </dev/null &
sleep 0.3
head -c 300000 /dev/zero
head -c 300000 /dev/zero >&2
exit 0`
	start := time.Now()
	res, err := m.Exec(context.Background(), script, agentbox.WithMaxOutputBytes(max), agentbox.WithTimeout(20*time.Second))
	el := time.Since(start)
	if err != nil {
		t.Fatalf("Exec: %v (after %v)", err, el)
	}
	t.Logf("exit %d, stdout %d bytes, stderr %d bytes, truncated %v, in %v", res.ExitCode, len(res.Stdout), len(res.Stderr), res.Truncated, el)
	if len(res.Stdout) > max || len(res.Stderr) > max {
		t.Errorf("CAP EXCEEDED: stdout %d, stderr %d bytes held past MaxOutputBytes %d", len(res.Stdout), len(res.Stderr), max)
	}
	if !res.Truncated {
		t.Errorf("Truncated not set after %d+ bytes", 600000)
	}
	if res.TimedOut || el > 15*time.Second {
		t.Errorf("HANG: Exec waited %v for a surviving writer (timed out %v)", el, res.TimedOut)
	}
	// Control.
	ctl, err := m.Exec(context.Background(), "echo hello; echo err >&2", agentbox.WithMaxOutputBytes(max))
	if err != nil || ctl.Stdout != "hello\n" || ctl.Stderr != "err\n" || ctl.Truncated {
		t.Fatalf("control: %+v, %v", ctl, err)
	}
}

// TestRedteam26StartPipeFlagsAndLateData: the caller's blocking pipe is
// Stdout of a program that floods it (yes) and that nobody reads, under
// WithTimeout. agentbox reopens the pipe non-blocking through /proc and
// gives its copy up after the timeout. The attack: the caller's own open
// file description left O_NONBLOCK (or with other flags changed), which
// makes the caller's later writes fail with EAGAIN, or bytes of the dead
// program reaching the caller's pipe after Wait returned. Held in session
// 26: the flags are the caller's, nothing arrives after Wait, and the
// pipe still works (control: a write and read back). Kept: earlier rounds
// counted descriptors, not the caller's flags or late bytes.
func TestRedteam26StartPipeFlagsAndLateData(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w, wf := rt26Pipe(t)
	before := rt26GetFL(t, w)
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", "yes 0123456789abcdef"}, Stdout: wf}
	p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt25Wait(t, p, 15*time.Second)
	if res == nil || !res.TimedOut {
		t.Fatalf("want a timed-out run, got %+v, %v", res, err)
	}
	if after := rt26GetFL(t, w); after != before {
		t.Errorf("FLAGS CHANGED on the caller's description: %#o -> %#o", before, after)
	}
	if err := unix.SetNonblock(r, true); err != nil { // the read end's description only
		t.Fatal(err)
	}
	got := rt26Drain(t, r)
	time.Sleep(500 * time.Millisecond)
	late := rt26Drain(t, r)
	t.Logf("pipe held %d bytes at Wait, %d arrived after", got, late)
	if late > 0 {
		t.Errorf("LATE DATA: %d bytes of the timed-out program reached the caller's pipe after Wait returned", late)
	}
	// Control: the caller's pipe still works, blocking.
	if _, err := unix.Write(w, []byte("ok")); err != nil {
		t.Fatalf("control write: %v", err)
	}
	buf := make([]byte, 8)
	if n, _ := unix.Read(r, buf); string(buf[:n]) != "ok" {
		t.Fatalf("control read %q", buf[:n])
	}
}

// TestRedteam26StdoutRegularFileKept: the caller's regular file, opened
// at its end after a header, is Stdout; the program tries to truncate or
// replace it through what it holds (`: > /proc/self/fd/1`, `: >
// /dev/stdout`, truncate -s 0 /dev/stdout) and to move its offset back
// (seek on fd 1). Held: the program holds only agentbox's pipe; the
// header stays and the output follows it (control).
func TestRedteam26StdoutRegularFileKept(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	p := t.TempDir() + "/out.log"
	if err := os.WriteFile(p, []byte("HEADER\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(0, 2); err != nil {
		t.Fatal(err)
	}
	script := `: > /proc/self/fd/1; : > /dev/stdout; truncate -s 0 /dev/stdout 2>/dev/null; truncate -s 0 /proc/self/fd/1 2>/dev/null
python3 -c 'import os; os.lseek(1,0,0); os.ftruncate(1,0)' 2>/dev/null
echo body`
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Stdout: f}
	pr, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, pr, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "HEADER\nbody\n" {
		t.Errorf("TRUNCATED/REPLACED: caller's file now %q, want %q", b, "HEADER\nbody\n")
	}
	if fl := rt26GetFL(t, int(f.Fd())); fl&(unix.O_APPEND|unix.O_NONBLOCK) != 0 {
		t.Errorf("FLAGS CHANGED on the caller's file: %#o", fl)
	}
}
