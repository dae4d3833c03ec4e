//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// TestRedteam26WrapStalledPipeLateData: Wrap with the caller's own pipe
// as cmd.Stdout, a program that floods it (yes) and a reader that has
// stalled (an agent host's log pipe whose consumer is paused), under
// WithTimeout. Wrap hands os/exec a boundedWriter, whose write into the
// caller's file runs in a goroutine of its own; after the timeout
// cmd.Wait gives the write up after copyDrain and returns, and cleanup
// runs, but the goroutine stays blocked in write(2) on the caller's
// descriptor (Wrap does not reopen the pipe non-blocking as Start does:
// reopenWriter / abandonOutputs). Nothing ends it: every such run leaves
// a goroutine and up to 32 KiB (os/exec's copy buffer) behind, and when
// the reader resumes, bytes of the killed command reach the caller's pipe
// after cmd.Wait and cleanup returned, interleaved with what the caller
// writes since. Start was fixed for exactly this
// (TestRedteam25LeakStalledStdoutPipe); Wrap was not, and the README
// promises the end of the given-up copy only for a Process's copy.
//
// Why it matters: a long-running host wrapping commands into a stalled
// pipe accumulates goroutines and buffers per run, and its log stream
// gets output of commands it already recorded as ended (a timed-out
// command's text appearing after the host's own "killed" line).
//
// Severity: low (resource growth per timed-out run while a reader is
// stalled, late bytes; no escape).
//
// Fix: in wrapStreams, give a pipe or FIFO as Stdout/Stderr a
// reopenWriter relay (as Process.output does) as boundedWriter's w and
// set a past write deadline on it when abandon is closed, closing it once
// the write returns.
//
// Fixed: wrapStreams relays Stdout/Stderr as Start does (relayed: a pipe
// or FIFO opened anew non-blocking), and Wrap's release sets a past write
// deadline on the relays (outputRelays.abandon, shared with
// Process.abandonOutputs); cleanup closes them.
func TestRedteam26WrapStalledPipeLateData(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	r, w, wf := rt26Pipe(t)
	// Fill the caller's pipe first: the reader has stalled.
	if err := unix.SetNonblock(r, true); err != nil {
		t.Fatal(err)
	}
	pipeSize, _ := unix.FcntlInt(uintptr(w), unix.F_GETPIPE_SZ, 0)
	fill := make([]byte, pipeSize)
	for i := range fill {
		fill[i] = 'H'
	}
	{
		// A non-blocking description of our own to fill without blocking.
		nb, err := unix.Open("/proc/self/fd/"+strconv.Itoa(w), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if n, err := unix.Write(nb, fill); n <= 0 || err != nil {
				break
			}
		}
		unix.Close(nb)
	}
	g0 := rt25Goroutines()
	cmd := exec.Command("/bin/sh", "-c", "yes KILLED-COMMAND-OUTPUT")
	cmd.Stdout = wf
	cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cleanup()
		t.Fatal("HANG: cmd.Wait did not return after the timeout")
	}
	cleanup()
	time.Sleep(300 * time.Millisecond)
	g1 := rt25Goroutines()
	// The reader resumes: drain what the caller wrote itself (the fill),
	// then see whether the killed command's output still arrives.
	buf := make([]byte, 1<<16)
	var tail strings.Builder
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Read(r, buf)
		if n > 0 {
			tail.Write(buf[:n])
			continue
		}
		_ = err
		time.Sleep(20 * time.Millisecond)
	}
	late := strings.Count(tail.String(), "KILLED-COMMAND-OUTPUT")
	t.Logf("goroutines %d -> %d; %d lines of the killed command reached the pipe after cmd.Wait and cleanup", g0, g1, late)
	if late > 0 {
		t.Errorf("LATE DATA: %d lines of the timed-out wrapped command reached the caller's pipe after cmd.Wait and cleanup returned (a write left blocked in the background)", late)
	}
	if g1 > g0 {
		t.Errorf("LEAK: %d goroutine(s) left after cmd.Wait and cleanup", g1-g0)
	}
	// Control: the caller's pipe works once drained.
	if _, err := unix.Write(w, []byte("ok")); err != nil {
		t.Fatalf("control write: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if n, _ := unix.Read(r, buf); string(buf[:n]) != "ok" {
		t.Fatalf("control read %q", buf[:n])
	}
}
