//go:build linux

package agentbox

import (
	"bytes"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// newStdinPipe relays the caller's pipe or named FIFO f to the program
// through a pipe of agentbox's, without reading ahead of the program: the
// program never holds the caller's pipe (whose inode is its creator's: a
// program running as the caller could reopen it through /proc/self/fd/0
// for writing and leave bytes in it for whatever reads the caller's input
// next, a host shell reading its script included; or change its size, or,
// for a FIFO, its mode), and it takes from the caller's pipe only what it
// reads, so `while read f; do agentbox exec …; done < list` goes on from
// the next line.
//
// The program's pipe holds one page, so "not full" is "empty". teeLoop
// looks at the next chunk of the caller's pipe (peekHead: tee(2) into a
// scratch pipe, which leaves the bytes in the caller's pipe), keeps a copy
// and writes it into the program's pipe; once the program has read it all
// (the pipe is empty again), the chunk is read off the caller's pipe and
// thrown away, and the next chunk goes. When the program's tree is gone,
// finish takes off the caller's pipe only the part of the last chunk the
// program read: the rest stays there for the caller, in order.
//
// The caller's pipe may have another reader: each byte must still reach
// one of them only.
//   - Another relay (a second sandboxed command given the same stdin, in
//     this process or another agentbox's: `producer | { agentbox exec --
//     worker & agentbox exec -- worker; }`) takes turns with this one: a
//     relay holds a lock on the caller's pipe from before it tees a chunk
//     until the chunk is settled (see stdinlock_linux.go), so each byte
//     reaches one program. The cost: a program that holds a chunk it does
//     not read keeps the other relays waiting until it reads it or ends,
//     as a buffered reader that took the chunk would, except that the
//     others wait instead of reading on (a program that reads only part
//     of its input before it waits for something another command of the
//     same stdin does can wait for ever). Where the caller's pipe cannot
//     be opened anew (openLock), there is no lock, and two relays of it
//     may both hand a chunk to their programs.
//   - Any other reader (a shell's read, a program run without agentbox)
//     does not take the lock. What is taken off the caller's pipe is only
//     what is still there of the chunk (takeRead), never the bytes that
//     came after it; and while the program has not read the chunk,
//     teeLoop looks every so often whether another reader took some of
//     it, and then takes back out of the program's pipe what the program
//     has not read yet (pullBack). A byte both read within the time
//     between two looks is the one case left.
func newStdinPipe(f *os.File) (*stdinFile, *os.File, error) {
	src, err := dupFD(f)
	if err != nil {
		return nil, nil, err
	}
	s := &stdinFile{src: src, keep: -1, w: -1, tee: true, null: -1, wake: -1, lock: -1, peek: [2]int{-1, -1}, stop: make(chan struct{}), done: make(chan struct{})}
	s.chunk, s.buf = make([]byte, 0, pipeAtomic), make([]byte, pipeAtomic)
	var p [2]int
	if err = unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		s.closeAll()
		return nil, nil, err
	}
	s.w = p[1]
	rd := os.NewFile(uintptr(p[0]), f.Name())
	if err = s.openTee(p[0]); err != nil {
		rd.Close()
		unix.Close(s.w)
		s.closeAll()
		return nil, nil, err
	}
	go s.teeLoop()
	return s, rd, nil
}

// openTee makes what teeLoop works with, around the program's pipe
// (read end rd, write end s.w: agentbox's alone, made non-blocking).
func (s *stdinFile) openTee(rd int) error {
	if _, err := unix.FcntlInt(uintptr(s.w), unix.F_SETPIPE_SZ, pipeAtomic); err != nil {
		return err
	}
	if err := unix.SetNonblock(s.w, true); err != nil {
		return err
	}
	var err error
	if s.keep, err = unix.FcntlInt(uintptr(rd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
		return err
	}
	if s.null, err = unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0); err != nil {
		return err
	}
	if s.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return err
	}
	s.lock = openLock(s.src)
	return unix.Pipe2(s.peek[:], unix.O_CLOEXEC)
}

// closeAll closes what a stdinFile being made has opened so far.
func (s *stdinFile) closeAll() {
	for _, fd := range []int{s.src, s.keep, s.null, s.wake, s.peek[0], s.peek[1], s.lock} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// teeLoop feeds the program's pipe from the caller's, a chunk at a time,
// until the caller's pipe ends (the program then reads its end of input),
// an error, or finish. s.chunk is always what is in the program's pipe
// and still in the caller's; the lock on the caller's pipe (lockHead) is
// held while there is one, and let go before waiting for more input.
//
// Once another reader of the caller's pipe has been seen, the relay goes
// on as before, looking again at every chunk: ending it would give the
// program an end of input the caller never made, and relaying by ordinary
// reads would read ahead, and what the program did not read by its end
// would then be lost to the other reader.
func (s *stdinFile) teeLoop() {
	defer close(s.done)
	defer unix.Close(s.w)
	for {
		if !s.awaitDrained() {
			return
		}
		s.takeRead(len(s.chunk)) // the program read all of it
		s.unlockHead()
		if !s.await(s.src, unix.POLLIN, false) || !s.lockHead() {
			return
		}
		fed := s.feed()
		if len(s.chunk) == 0 {
			s.unlockHead() // nothing went out: the end, or nothing to take
		}
		if !fed {
			return
		}
	}
}

// How often awaitDrained looks whether the chunk is still in the caller's
// pipe: soon after it went, then less and less often (a program that does
// not read its stdin costs a look per checkMax).
const (
	checkFirst = 5 * time.Millisecond
	checkMax   = 100 * time.Millisecond
)

// awaitDrained waits until the program's pipe is empty, false once finish
// is called. Meanwhile, when another reader has taken some of the chunk
// from the caller's pipe, it takes back what the program has not read.
func (s *stdinFile) awaitDrained() bool {
	for every := checkFirst; ; every = min(2*every, checkMax) {
		limit := time.Duration(-1)
		if len(s.chunk) > 0 {
			limit = every
		}
		ready, ok := s.awaitFor(s.w, unix.POLLOUT, true, limit)
		switch {
		case !ok:
			return false
		case ready:
			return true
		case s.chunkTaken():
			s.pullBack()
			return true
		}
	}
}

// feed looks at the head of the caller's pipe, a chunk at most, and
// writes it into the program's (empty) pipe; false at the end of input
// (no writer left and nothing in it) or on an error.
func (s *stdinFile) feed() bool {
	head, err := s.peekHead(pipeAtomic)
	switch {
	case errors.Is(err, unix.EAGAIN):
		return true // another reader of the caller's pipe was first
	case err != nil, len(head) == 0:
		return false
	}
	n, err := unix.Write(s.w, head)
	switch {
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
		return true // the program wrote into its own pipe: wait until it is empty
	case err != nil:
		return false
	}
	s.chunk = append(s.chunk[:0], head[:n]...)
	return true
}

// peekHead returns up to n (at most pipeAtomic) bytes from the head of
// the caller's pipe without taking them: tee(2) copies them into the
// scratch pipe, which is read empty. EAGAIN: the pipe is empty; nothing
// and no error: the end of input.
func (s *stdinFile) peekHead(n int) ([]byte, error) {
	for {
		m, err := unix.Tee(s.src, s.peek[1], n, unix.SPLICE_F_NONBLOCK)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m == 0 {
			return nil, err
		}
		buf := s.buf[:m]
		for got := 0; got < len(buf); {
			r, err := unix.Read(s.peek[0], buf[got:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || r <= 0 {
				return nil, errors.Join(unix.EIO, err)
			}
			got += r
		}
		return buf, nil
	}
}

// gone is how many of chunk's first bytes are no longer at the head of
// the caller's pipe, which starts with head (peekHead of len(chunk)):
// another reader took them, and the pipe now starts with the rest of
// chunk. The least count that fits is taken: bytes written after the
// chunk that equal its own are as good as its own to every reader.
func gone(chunk, head []byte) int {
	for j := range chunk {
		if bytes.HasPrefix(head, chunk[j:]) {
			return j
		}
	}
	return len(chunk)
}

// chunkTaken reports whether another reader took some of the chunk from
// the caller's pipe (false when it cannot tell).
func (s *stdinFile) chunkTaken() bool {
	head, err := s.peekHead(len(s.chunk))
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		return false
	}
	return gone(s.chunk, head) > 0
}

// takeRead takes off the caller's pipe the part of the chunk the program
// read (its first read bytes) that no other reader took, and forgets the
// chunk: what is left of it in the caller's pipe goes next. When the head
// of the caller's pipe cannot be seen nothing is taken: a byte read twice
// rather than one lost.
func (s *stdinFile) takeRead(read int) {
	if len(s.chunk) == 0 {
		return
	}
	head, err := s.peekHead(len(s.chunk))
	if err == nil || errors.Is(err, unix.EAGAIN) {
		s.discard(read - gone(s.chunk, head))
	}
	s.chunk = s.chunk[:0]
}

// pullBack, once another reader took some of the chunk, takes out of the
// program's pipe what the program has not read of it yet, which that
// reader or the relay's next chunk will have instead, and settles what it
// did read (takeRead).
func (s *stdinFile) pullBack() {
	drained := 0
	for {
		m, err := unix.Splice(s.keep, nil, s.null, nil, 1<<20, unix.SPLICE_F_NONBLOCK)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		drained += int(m)
	}
	s.takeRead(len(s.chunk) - min(drained, len(s.chunk)))
}

// await waits until fd is ready for events (or hung up), false once
// finish is called. empty: fd is the program's pipe, ready when empty
// (POLLOUT is "not full", which for one page is empty, unless the
// program made its pipe larger: see enlarged).
func (s *stdinFile) await(fd int, events int16, empty bool) bool {
	ready, ok := s.awaitFor(fd, events, empty, -1)
	return ready && ok
}

// awaitFor is await for limit at most (no limit when negative): ready is
// false, ok true, when the time is up.
func (s *stdinFile) awaitFor(fd int, events int16, empty bool, limit time.Duration) (ready, ok bool) {
	deadline := time.Now().Add(limit)
	for {
		wait := -1
		if limit >= 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return false, true
			}
			wait = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: events}, {Fd: int32(s.wake), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, wait); err != nil && !errors.Is(err, unix.EINTR) {
			return false, false
		}
		switch ev := fds[0].Revents; {
		case fds[1].Revents != 0, ev&unix.POLLNVAL != 0:
			return false, false
		case !empty && ev != 0:
			return true, true
		case ev&unix.POLLERR != 0:
			return false, false
		case ev&unix.POLLOUT != 0:
			if q, err := pipeQueued(fd); err != nil || q == 0 {
				s.pause = 0
				return err == nil, err == nil
			}
			if !s.enlarged(fd, wait) {
				return false, false
			}
		}
	}
}

// enlarged is called when the program's pipe fd is "not full" but not
// empty: the program made it larger than a page (F_SETPIPE_SZ, which any
// program may do to its stdin). Polling again at once would spin for as
// long as the program leaves its input unread. The pipe is put back to
// one page, which the relay never needs more than (it writes one chunk at
// a time), so that poll again waits for "empty" at no cost; and the next
// look waits a pause that grows from 1 ms to checkMax (at most wait ms,
// the caller's time left), for when that fails (the program wrote more
// than a page into its own pipe: EBUSY) or the program enlarges the pipe
// again and again. false once finish is called.
func (s *stdinFile) enlarged(fd, wait int) bool {
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeAtomic)
	s.pause = min(max(2*s.pause, time.Millisecond), checkMax)
	d := s.pause
	if wait >= 0 {
		d = min(d, time.Duration(wait)*time.Millisecond)
	}
	return s.sleep(d)
}

// discard takes n bytes off the caller's pipe, without waiting: they are
// there (takeRead saw them), unless another reader took them since.
func (s *stdinFile) discard(n int) {
	for n > 0 {
		m, err := unix.Splice(s.src, nil, s.null, nil, n, unix.SPLICE_F_NONBLOCK)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m <= 0 {
			return
		}
		n -= int(m)
	}
}

// giveBack, once the loop has stopped, takes off the caller's pipe the
// part of the last chunk the program read; the rest stays for the caller.
// A program that wrote into its own stdin pipe (reopening it through
// /proc/self/fd/0) only makes that part smaller: the caller then reads
// again bytes the program took, as if it had not read them. Nothing the
// program writes ever reaches the caller's pipe: agentbox only reads it.
func (s *stdinFile) giveBack() {
	left, err := pipeQueued(s.keep)
	if err != nil {
		return
	}
	s.takeRead(len(s.chunk) - min(left, len(s.chunk)))
	s.unlockHead()
}

// wakeUp stops a waiting teeLoop.
func (s *stdinFile) wakeUp() {
	if s.wake >= 0 {
		_, _ = unix.Write(s.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
}
