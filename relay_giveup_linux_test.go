package agentbox

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReopenedFlags: a description opened anew takes the caller's status
// flags but notTakenOver (O_ASYNC among them: its SIGIO owner stays with
// the caller's description), and reports false for a flag F_SETFL cannot
// give it, so that relayed copies the caller's descriptor then.
func TestReopenedFlags(t *testing.T) {
	cases := []struct {
		name      string
		want      int
		ok        bool
		has, lack int
	}{
		{"none", 0, true, 0, unix.O_ASYNC | unix.O_APPEND},
		{"append", unix.O_APPEND, true, unix.O_APPEND, unix.O_ASYNC},
		{"packets", unix.O_DIRECT, true, unix.O_DIRECT, unix.O_ASYNC},
		{"async dropped", unix.O_ASYNC, true, 0, unix.O_ASYNC},
		{"async dropped, append kept", unix.O_ASYNC | unix.O_APPEND, true, unix.O_APPEND, unix.O_ASYNC},
		{"access mode and blocking ignored", unix.O_RDWR, true, unix.O_NONBLOCK, unix.O_ASYNC},
		{"flag F_SETFL cannot set", unix.O_SYNC, false, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			wfd, _ := rawFD(w)
			fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(wfd), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Skipf("no /proc reopen: %v", err)
			}
			defer unix.Close(fd)
			if got := reopenedFlags(fd, c.want); got != c.ok {
				t.Fatalf("reopenedFlags(%#x) = %v, want %v", c.want, got, c.ok)
			}
			if !c.ok {
				return
			}
			fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			if err != nil {
				t.Fatal(err)
			}
			if fl&c.has != c.has || fl&c.lack != 0 {
				t.Fatalf("flags %#x: want %#x set and %#x clear", fl, c.has, c.lack)
			}
		})
	}
}

// TestReopenWriterAsync: a caller's pipe whose description has O_ASYNC is
// opened anew all the same (it used to be copied, and a copy's write the
// caller can make blocking escapes the deadline), and the caller's own
// description keeps O_ASYNC.
func TestReopenWriterAsync(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wfd, _ := rawFD(w)
	fl, _ := unix.FcntlInt(uintptr(wfd), unix.F_GETFL, 0)
	if _, err := unix.FcntlInt(uintptr(wfd), unix.F_SETFL, fl|unix.O_ASYNC); err != nil {
		t.Fatal(err)
	}
	nw := reopenWriter(w)
	if nw == nil {
		t.Fatal("reopenWriter refused a pipe with O_ASYNC")
	}
	defer nw.Close()
	if sameDescription(w, nw) {
		t.Fatal("reopenWriter returned the caller's own description")
	}
	if got, _ := unix.FcntlInt(uintptr(wfd), unix.F_GETFL, 0); got&unix.O_ASYNC == 0 {
		t.Fatalf("the caller's description lost O_ASYNC (%#x)", got)
	}
}

// TestRelayAbandonBoundedOnBlockingDup: a relay writing a dup of the
// caller's pipe that the caller turned blocking after the poller took it
// (os.File.Fd does that to the shared description) has a write no
// deadline interrupts. abandon must still return, writeGiveUp after the
// interruption at most, close must not wait for the stuck write, and
// every write after it must fail: Wait and Wrap's cleanup call abandon,
// Wrap's cleanup close, and both used to wait for the caller's reader.
func TestRelayAbandonBoundedOnBlockingDup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wfd, _ := rawFD(w)
	dup, err := unix.FcntlInt(uintptr(wfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	rl := newRelay(os.NewFile(uintptr(dup), "dup"))      // non-blocking now: the poller takes it
	if err := unix.SetNonblock(wfd, false); err != nil { // the caller's w.Fd(), on the shared description
		t.Fatal(err)
	}
	size, err := unix.FcntlInt(uintptr(wfd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	rfd, _ := rawFD(r)
	written := make(chan struct{})
	go func() {
		defer close(written)
		_, _ = rl.Write(make([]byte, size+32<<10)) // fills the pipe, then blocks in the kernel
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		n, err := unix.IoctlGetInt(rfd, unix.TIOCINQ)
		if err != nil || n >= size || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	abandoned := make(chan struct{})
	go func() { rl.abandon(); close(abandoned) }()
	select {
	case <-abandoned:
	case <-time.After(15 * time.Second): // writeGiveUp, with a wide margin for loaded CI
		drainUntil(rfd, written)
		t.Fatal("abandon did not return while the write on the blocking dup was stuck")
	}
	if d := time.Since(t0); d < writeGiveUp/2 {
		t.Errorf("abandon returned after %v: the stuck write cannot have returned", d)
	}
	closed := make(chan struct{})
	go func() { rl.close(); close(closed) }() // Wrap's cleanup, with the write still stuck
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		drainUntil(rfd, written)
		t.Fatal("close waited for the write stuck on the blocking dup")
	}
	drainUntil(rfd, written) // the stuck write ends once its reader takes it
	if _, err := rl.Write([]byte("late")); !errors.Is(err, errAbandoned) {
		t.Fatalf("a write after abandon: %v, want errAbandoned", err)
	}
}

// drainUntil reads the non-blocking fd until done is closed.
func drainUntil(fd int, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
			drainFD(fd)
			time.Sleep(time.Millisecond)
		}
	}
}
