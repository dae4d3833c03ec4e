package egress

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitDataBlocks reports that waitData waits for data: an intercepting
// tunnel can use it to notice an upstream that speaks first.
const waitDataBlocks = true

// maxSplice caps one copy round; it matches the pipe size Go's splice uses.
const maxSplice = 1 << 20

// waitData blocks until c has bytes to read or has reached EOF, honouring
// c's read deadline, and returns how many bytes are queued (0 at EOF).
// Copying exactly that many lets splice(2) finish without waiting, so an
// idle tunnel holds no splice pipe while it waits.
func waitData(c net.Conn) (int64, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return spliceChunk, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return spliceChunk, nil
	}
	var avail int64
	var opErr error
	var peek [1]byte
	err = rc.Read(func(fd uintptr) bool {
		if q, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil && q > 0 {
			avail = int64(min(q, maxSplice))
			return true
		}
		// Nothing queued, or the count is unavailable: peek to tell
		// "wait" from EOF.
		n, _, err := unix.Recvfrom(int(fd), peek[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return false // wait for readability
		case err != nil:
			opErr = err
		case n == 0:
			avail = 0 // EOF
		default:
			avail = 1 // arrived between the two calls; the next round gets the rest
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	if opErr != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: opErr}
	}
	return avail, nil
}

// untilHangup returns a context that is done when ctx is, when the peer of
// c hangs up (closes, or shuts down its writing side) or when c is closed
// here, all noticed without reading a byte of what c has queued; and a func
// that ends the watch and reports whether the context was done by then.
// Call it before reading c again: the watch holds c's read side. It
// clears c's read deadline (every reader here sets its own).
func untilHangup(ctx context.Context, c net.Conn) (context.Context, func() bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return ctx, func() bool { return ctx.Err() != nil }
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return ctx, func() bool { return ctx.Err() != nil }
	}
	// Only the watch's own end may time it out: the deadline a reader
	// left would end it early, as if the peer had gone.
	_ = c.SetReadDeadline(time.Time{})
	ctx, cancel := context.WithCancel(ctx)
	var stopping atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := rc.Read(func(fd uintptr) bool {
			if stopping.Load() {
				return true
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
			n, err := unix.Poll(fds, 0)
			if err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
				cancel()
				return true
			}
			return false // wait for the next event on c
		})
		if err != nil && !stopping.Load() {
			cancel() // closed here
		}
	}()
	return ctx, func() bool {
		stopping.Store(true)
		_ = c.SetReadDeadline(time.Unix(1, 0)) // wake the watch
		<-done
		_ = c.SetReadDeadline(time.Time{})
		gone := ctx.Err() != nil
		cancel()
		return gone
	}
}
