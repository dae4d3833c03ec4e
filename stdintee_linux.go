//go:build linux

package agentbox

import (
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
// copies the next chunk of the caller's pipe into it with tee(2), which
// leaves the bytes in the caller's pipe; once the program has read them
// all (the pipe is empty again), they are read off the caller's pipe and
// thrown away, and the next chunk goes. When the program's tree is gone,
// finish takes off the caller's pipe only the part of the last chunk the
// program read: the rest stays there for the caller, in order.
func newStdinPipe(f *os.File) (*stdinFile, *os.File, error) {
	src, err := dupFD(f)
	if err != nil {
		return nil, nil, err
	}
	s := &stdinFile{src: src, keep: -1, w: -1, tee: true, null: -1, wake: -1, stop: make(chan struct{}), done: make(chan struct{})}
	var p [2]int
	if err = unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		s.closeAll()
		return nil, nil, err
	}
	s.w = p[1]
	rd := os.NewFile(uintptr(p[0]), f.Name())
	if _, err = unix.FcntlInt(uintptr(s.w), unix.F_SETPIPE_SZ, pipeAtomic); err == nil {
		if s.keep, err = unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, 0); err == nil {
			if s.null, err = unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0); err == nil {
				s.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
			}
		}
	}
	if err != nil {
		rd.Close()
		unix.Close(s.w)
		s.closeAll()
		return nil, nil, err
	}
	go s.teeLoop()
	return s, rd, nil
}

// closeAll closes what a stdinFile being made has opened so far.
func (s *stdinFile) closeAll() {
	for _, fd := range []int{s.src, s.keep, s.null, s.wake} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// teeLoop feeds the program's pipe from the caller's, a chunk at a time,
// until the caller's pipe ends (the program then reads its end of input),
// an error, or finish. s.last is always what is in the program's pipe and
// still in the caller's.
func (s *stdinFile) teeLoop() {
	defer close(s.done)
	defer unix.Close(s.w)
	for {
		if !s.await(s.w, unix.POLLOUT, true) {
			return
		}
		s.discard(s.last) // the program read all of it
		s.last = 0
		if !s.await(s.src, unix.POLLIN, false) {
			return
		}
		n, err := unix.Tee(s.src, s.w, pipeAtomic, unix.SPLICE_F_NONBLOCK)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue // another reader of the caller's pipe was first
		case err != nil, n == 0:
			return // 0: no writer left and nothing in it, the end of input
		}
		s.last = int(n)
	}
}

// await waits until fd is ready for events (or hung up), false once
// finish is called. empty: fd is the program's pipe, ready when empty
// (POLLOUT is "not full", which for one page is empty, unless the
// program made its pipe larger: then it is asked in steps).
func (s *stdinFile) await(fd int, events int16, empty bool) bool {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: events}, {Fd: int32(s.wake), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return false
		}
		switch ev := fds[0].Revents; {
		case fds[1].Revents != 0, ev&unix.POLLNVAL != 0:
			return false
		case !empty && ev != 0:
			return true
		case ev&unix.POLLERR != 0:
			return false
		case ev&unix.POLLOUT != 0:
			if q, err := pipeQueued(fd); err != nil || q == 0 {
				return err == nil
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// discard takes n bytes off the caller's pipe, without waiting: they are
// there (tee left them), unless another reader of the pipe took them.
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
	s.discard(s.last - min(left, s.last))
	s.last = 0
}

// wakeUp stops a waiting teeLoop.
func (s *stdinFile) wakeUp() {
	if s.wake >= 0 {
		_, _ = unix.Write(s.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
}
