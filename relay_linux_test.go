package agentbox

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRelayAbandonNothingAfter: a relay's write blocked on the caller's
// full pipe is given up (relay.abandon), and the caller's reader empties
// the pipe at once, as a caller does once Wait returned. Nothing may
// reach the pipe after abandon returned: the deadline alone wakes the
// write, but a write whose goroutine had not run yet when the pipe turned
// writable went on (32 KiB of a timed-out program after Wait, in CI).
// Control: before abandon the relay carries bytes to the reader.
func TestRelayAbandonNothingAfter(t *testing.T) {
	for i := range 200 {
		if late := relayAbandonOnce(t); late > 0 {
			t.Fatalf("round %d: %d bytes reached the caller's pipe after abandon returned", i, late)
		}
	}
}

// relayAbandonOnce runs one round and returns how many bytes arrived
// after abandon.
func relayAbandonOnce(t *testing.T) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	rl, err := relayed(w, streamPipe)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.close()
	rfd, _ := rawFD(r)
	// Control: the relay carries a write to the reader.
	if _, err := rl.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	if n := drainFD(rfd); n != 2 {
		t.Fatalf("control: read %d bytes through the relay, want 2", n)
	}
	wfd, _ := rawFD(w)
	size, err := unix.FcntlInt(uintptr(wfd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = rl.Write(make([]byte, size+32<<10)) // fills the pipe, then blocks
	}()
	for deadline := time.Now().Add(5 * time.Second); ; { // until the pipe is full
		var n int
		n, err = unix.IoctlGetInt(rfd, unix.TIOCINQ)
		if err != nil || n >= size || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	rl.abandon()
	drainFD(rfd) // what the pipe held when the copy was given up
	<-done
	time.Sleep(time.Millisecond)
	return drainFD(rfd)
}

// drainFD reads what the non-blocking descriptor fd holds now.
func drainFD(fd int) int {
	total := 0
	buf := make([]byte, 1<<16)
	for {
		n, err := unix.Read(fd, buf)
		if n <= 0 || err != nil {
			return total
		}
		total += n
	}
}
