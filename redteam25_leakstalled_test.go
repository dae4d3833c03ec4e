//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam25LeakStalledStdoutPipe: the caller hands many runs one
// stdout pipe (an agent host's log pipe) whose reader has stalled — the
// pipe is full but the caller keeps both ends open, as a host whose
// consumer is slow or paused does. Each run is a program that writes
// (yes) and is killed by WithTimeout. agentbox relays a pipe through a
// dup of the caller's descriptor, a pipe of its own and a copy goroutine
// (Process.output); after the timeout Wait waits copyDrain (2 s) and
// returns, leaving the copy blocked in write(2) on the dup
// (waitAtMost: "left to end when its writer takes the bytes or fails").
// Nothing ever ends it while the caller's pipe stays full: every run
// leaves the caller's process two more descriptors (the dup and the
// relay pipe's read end) and two more goroutines (the copy, and
// waitAtMost's waiter on the copies' WaitGroup), for as long as the
// reader is stalled. The program is long dead and Wait has returned, so
// the caller has no handle to release them. The control: the same runs
// with a pipe whose reader drains it leave the counts where they were,
// and the stalled runs do return (each within copyDrain).
//
// Why it matters: a long-running agent host that sends sandboxed
// commands' output to a pipe whose consumer stalls (a log shipper that is
// down, a terminal multiplexer paused) accumulates descriptors and
// goroutines per command until it hits RLIMIT_NOFILE and every later
// Start fails with EMFILE. os/exec hands an *os.File stdout to the child
// as it is and so never holds anything after Wait. README documents the
// 2 s wait, not that the relay outlives Wait.
//
// Severity: medium (resource exhaustion of the host process; no escape).
//
// Fix: once copyDrain has passed, abandon the copy for real: put the dup
// in non-blocking mode through the poller (os.NewFile on an O_NONBLOCK
// fd — reopen /proc/self/fd/N rather than dup, so the caller's file
// description keeps its flags) so that closing it interrupts the blocked
// Write, then close the relay pipe's read end; or document that a stalled
// writer pins two descriptors and a goroutine per run.
//
// Fixed: a caller's pipe or FIFO as Stdout or Stderr is opened anew,
// non-blocking, through /proc (reopenWriter, files_linux.go), and Wait
// sets a past write deadline on it once copyDrain has passed
// (Process.abandonOutputs): the copy ends and closes its descriptors.
func TestRedteam25LeakStalledStdoutPipe(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	const runs = 12
	runOne := func(w *os.File) time.Duration {
		cmd := exec.Command("/bin/sh", "-c", "yes")
		cmd.Stdout = w
		p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if _, err := rt25Wait(t, p, 20*time.Second); !errors.Is(err, agentbox.ErrTimeout) {
			t.Errorf("Wait after the 200 ms timeout: %v, want ErrTimeout", err)
		}
		return time.Since(t0)
	}
	settle := func() (int, int) {
		time.Sleep(300 * time.Millisecond)
		return countFDs(t), rt25Goroutines()
	}

	// Control: a pipe whose reader drains it.
	cr, cw, _ := os.Pipe()
	drained := make(chan struct{})
	go func() {
		buf := make([]byte, 1<<16)
		for {
			if _, err := cr.Read(buf); err != nil {
				close(drained)
				return
			}
		}
	}()
	runOne(cw)
	fd0, g0 := settle()
	for i := 0; i < runs; i++ {
		runOne(cw)
	}
	fd1, g1 := settle()
	t.Logf("drained pipe: fds %d -> %d, goroutines %d -> %d", fd0, fd1, g0, g1)
	if fd1-fd0 >= runs/2 || g1-g0 >= runs/2 {
		t.Fatalf("control: a drained stdout pipe leaked (fds %d -> %d, goroutines %d -> %d)", fd0, fd1, g0, g1)
	}
	cw.Close()
	<-drained
	cr.Close()

	// Attack: a pipe whose reader has stalled (both ends kept open).
	sr, sw, _ := os.Pipe()
	defer sr.Close()
	defer sw.Close()
	runOne(sw) // fills the pipe
	fd2, g2 := settle()
	for i := 0; i < runs; i++ {
		if d := runOne(sw); d > 10*time.Second {
			t.Fatalf("Wait took %v", d)
		}
	}
	fd3, g3 := settle()
	t.Logf("stalled pipe: fds %d -> %d, goroutines %d -> %d after %d runs", fd2, fd3, g2, g3, runs)
	if fd3-fd2 >= runs || g3-g2 >= runs/2 {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		stacks := string(buf[:n])
		blocked := strings.Count(stacks, "agentbox.(*Process).output")
		t.Errorf("LEAK: %d timed-out runs with a stalled stdout pipe left the caller %d more descriptors and %d more goroutines (%d copy goroutines of Process.output still blocked) after every Wait returned; a long-running host reaches EMFILE", runs, fd3-fd2, g3-g2, blocked)
	}
}
