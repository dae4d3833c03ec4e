//go:build linux

package agentbox

import (
	"errors"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Relays of one caller's pipe take turns at its head: a relay holds an
// exclusive flock(2) on the pipe from before it tees a chunk until that
// chunk is settled (taken off the caller's pipe once its program read it,
// or given back at finish), so that no other relay tees the same bytes
// meanwhile. The lock is held on an open file description of the relay's
// own (openLock): flock's owner is the open file description, and the
// caller's descriptor, inherited by every process of a pipeline, is one
// description for all of them (two `agentbox exec` of one shell's pipe
// would both "hold" a lock on it). Relays in one process and in separate
// agentbox processes thus exclude each other alike. Readers that do not
// take the lock (a shell's read, a program run without agentbox) are not
// held back: chunkTaken notices them.
//
// How long a relay that waits for the lock waits between tries: the lock
// is tried without blocking, so that finish (the wake eventfd) still
// stops the wait at once.
const (
	lockFirst = 5 * time.Millisecond
	lockMax   = 100 * time.Millisecond
)

// openLock opens the caller's pipe src anew, through /proc, for the lock:
// a new open file description of the same pipe (O_NONBLOCK: a FIFO's open
// for reading does not wait for a writer; it is never read). -1 when it
// cannot (no /proc, or a pipe whose inode the caller may not open, as an
// unprivileged caller handed another user's pipe): the relay then goes
// on without the lock, and two relays of that pipe may both hand a chunk
// to their programs, as before the lock.
func openLock(src int) int {
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(src), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// lockHead takes the lock on the caller's pipe, waiting for another
// relay's chunk to be settled; false once finish is called. Without a
// lock (openLock failed, or flock itself does) it goes on unlocked.
func (s *stdinFile) lockHead() bool {
	if s.lock < 0 || s.locked {
		return true
	}
	for wait := lockFirst; ; wait = min(2*wait, lockMax) {
		err := unix.Flock(s.lock, unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			s.locked = true
			return true
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EWOULDBLOCK):
			return true // not lockable: relayed as without the lock
		}
		if !s.sleep(wait) {
			return false
		}
	}
}

// unlockHead lets the other relays of the caller's pipe at its head: the
// chunk is settled, or none went out.
func (s *stdinFile) unlockHead() {
	if s.locked {
		_ = unix.Flock(s.lock, unix.LOCK_UN)
		s.locked = false
	}
}

// sleep waits for d, false when finish is called meanwhile.
func (s *stdinFile) sleep(d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(s.wake), Events: unix.POLLIN}}
	_, err := unix.Poll(fds, int((d+time.Millisecond-1)/time.Millisecond))
	return fds[0].Revents == 0 && (err == nil || errors.Is(err, unix.EINTR))
}
