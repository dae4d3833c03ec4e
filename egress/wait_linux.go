package egress

import (
	"errors"
	"net"
	"syscall"

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
