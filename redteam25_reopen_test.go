//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// rt25BlockingPipe is a pipe as a shell makes it: both ends blocking.
func rt25BlockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func rt25Flags(t *testing.T, f *os.File) int {
	t.Helper()
	rc, _ := f.SyscallConn()
	var fl int
	var err error
	rc.Control(func(fd uintptr) { fl, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// TestRedteam25ReopenReadEndBecomesWriter: the caller hands, as Stdout, a
// descriptor it holds only for reading: the read end of a pipe (its own
// input, as os.Stdin where a parent feeds it commands). Before fcb35bb
// agentbox dup'ed it and the program's writes failed (EBADF): the output
// went nowhere. Now reopenWriter opens /proc/self/fd/N with O_WRONLY,
// which for a pipe gives a write end of the same pipe: the program's
// output is written into the caller's own input, where the caller (a host
// shell reading its script from a pipe, a driver reading commands) reads
// it as if its parent had sent it. The streams.go comment names exactly
// this (a program reopening the caller's pipe "for the other direction:
// write into the caller's stdin") as why a pipe is relayed at all.
//
// Severity: low (needs a caller that hands a read-only descriptor as an
// output, a mistake, but the result is injection into the caller's input
// instead of lost output).
//
// Fix: reopen only a descriptor whose access mode (F_GETFL & O_ACCMODE)
// is O_WRONLY or O_RDWR; otherwise dup as before (or refuse it).
//
// Fixed: reopenWriter (files_linux.go) opens anew only a description the
// caller may write; a read-only one is copied as before.
func TestRedteam25ReopenReadEndBecomesWriter(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w := rt25BlockingPipe(t)
	// Control: the write end as Stdout carries the output.
	cmd := exec.Command("/bin/sh", "-c", "echo CONTROL")
	cmd.Stdout = w
	p, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, p, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "CONTROL\n" {
		t.Fatalf("control: got %q", buf[:n])
	}
	// Attack: the read end as Stdout.
	cmd = exec.Command("/bin/sh", "-c", "echo INJECTED")
	cmd.Stdout = r
	p, err = m.Start(context.Background(), cmd)
	if err != nil {
		t.Logf("Start refused the read end: %v", err)
		return
	}
	_, _ = rt25Wait(t, p, 30*time.Second)
	fd := int(r.Fd())
	unix.SetNonblock(fd, true)
	n, _ = unix.Read(fd, buf)
	if n > 0 {
		t.Fatalf("the program's output was written into the pipe the caller holds only for reading: %q", buf[:n])
	}
}

// TestRedteam25ReopenLargeSharedOrder: stdout and stderr on one blocking
// pipe description (2>&1), 8 MiB of numbered lines alternating between
// them, read by a normal reader; and the caller's own descriptor keeps
// its flags (no O_NONBLOCK leaks to it). Held.
func TestRedteam25ReopenLargeSharedOrder(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w := rt25BlockingPipe(t)
	before := rt25Flags(t, w)
	script := `i=0; while [ $i -lt 200000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout, cmd.Stderr = w, w
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	p, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, p, 200*time.Second); err != nil {
		t.Fatal(err)
	}
	if after := rt25Flags(t, w); after != before {
		t.Errorf("caller's flags changed: %#x -> %#x", before, after)
	}
	w.Close()
	b := <-got
	var want bytes.Buffer
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if !bytes.Equal(b, want.Bytes()) {
		t.Fatalf("output differs: got %d bytes (sha %x), want %d", len(b), sha256.Sum256(b), want.Len())
	}
}

// TestRedteam25ReopenSlowLiveReader: a reader that takes 1 byte per 10 ms
// and no timeout: Wait waits for all of it. Held.
func TestRedteam25ReopenSlowLiveReader(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w := rt25BlockingPipe(t)
	cmd := exec.Command("/bin/sh", "-c", "head -c 700 /dev/zero | tr '\\0' a; exit 3")
	cmd.Stdout = w
	got := make(chan []byte)
	go func() {
		var all []byte
		b := make([]byte, 1)
		for {
			n, err := r.Read(b)
			all = append(all, b[:n]...)
			if err != nil {
				got <- all
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	p, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt25Wait(t, p, 60*time.Second)
	if err != nil || res.ExitCode != 3 {
		t.Fatalf("res %+v err %v", res, err)
	}
	w.Close()
	b := <-got
	if string(b) != strings.Repeat("a", 700) {
		t.Fatalf("got %d bytes", len(b))
	}
}

// TestRedteam25ReopenSocketStillRelayed: a socketpair as Stdout (not
// reopened: dup'ed as before) still carries the output, and a FIFO whose
// reader left before Start (reopen fails with ENXIO, dup fallback) gives
// the program EPIPE rather than hanging Wait. Held.
func TestRedteam25ReopenSocketStillRelayed(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	defer a.Close()
	cmd := exec.Command("/bin/sh", "-c", "echo SOCK")
	cmd.Stdout = b
	p, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, p, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	b.Close()
	got, _ := io.ReadAll(a)
	if string(got) != "SOCK\n" {
		t.Fatalf("socket got %q", got)
	}

	fifo := t.TempDir() + "/f"
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	wr, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	rd.Close() // the reader goes
	cmd = exec.Command("/bin/sh", "-c", "yes; echo gone >&2")
	cmd.Stdout = wr
	p, err = m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, p, 30*time.Second); err != nil {
		t.Logf("wait: %v", err)
	}
}
