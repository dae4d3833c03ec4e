//go:build unix

package agentbox

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// pipeAtomic is how much one write to a pipe puts in whole or not at all
// (PIPE_BUF): what stdinFile writes at a time, so that what is in the pipe
// is known to the byte.
const pipeAtomic = 4096

// stdinFile hands the program a regular file of the caller's as its stdin
// through a pipe, not as the file's own descriptor (which the program, as
// the file's owner, could fchmod: see streamKind), and without taking from
// the caller more than the program read: the file is read with pread from
// its offset, which does not move while the program runs, and once the
// program's tree is gone (finish) the offset is set past what the program
// took from the pipe, as if it had read the file itself. A shell's
// `while read f; do agentbox exec …; done < list` goes on from the next
// line, as it does without agentbox.
type stdinFile struct {
	src    int      // a duplicate of the caller's descriptor: its offset is the caller's
	start  int64    // the offset when the program started
	keep   int      // agentbox's own read end, to count what the program left in the pipe
	w      int      // the write end, non-blocking
	stream bool     // src is a stream (a socket): read, not pread
	owned  *os.File // the program's read end, where agentbox must close it (Wrap)
	stop   chan struct{}
	done   chan struct{}

	mu      sync.Mutex // written against what is in the pipe (taken)
	written int64      // what went into the pipe
	out     int64      // what the program wrote into src's open file description (offsetWriter)

	tee   bool   // src is a pipe or FIFO, relayed without read-ahead (teeLoop)
	chunk []byte // tee: what went into the pipe last, still in the caller's pipe
	peek  [2]int // tee: a scratch pipe, to look at the caller's pipe without taking from it
	buf   []byte // tee: what peek saw
	null  int    // tee: /dev/null, to discard from the caller's pipe what the program took
	wake  int    // tee: an eventfd finish writes, to stop the loop at once

	lock   int           // tee: agentbox's own open file description of the caller's pipe, flock'd while a chunk is out (-1: none)
	locked bool          // tee: lock is held
	pause  time.Duration // tee: the last wait for an enlarged program's pipe to be empty (enlarged)
}

// errNotSeekable: the file has no offset to read from (a regular file of
// /proc or /sys that is a stream); it is relayed as one.
var errNotSeekable = errors.New("not seekable")

// newStdinStream relays the stream f (a socket, or a root caller's pipe)
// to the program as stdinFile does a file, but with read: what it read
// ahead of the program, at most a pipe's worth, is lost to the caller when
// the program ends without reading it; nothing is read after that (finish
// stops the copy, which waits for input in steps of 50 ms).
func newStdinStream(f *os.File) (*stdinFile, *os.File, error) {
	return startStdin(f, true)
}

// newStdinFile starts relaying f and returns the pipe's read end for the
// program.
func newStdinFile(f *os.File) (*stdinFile, *os.File, error) {
	return startStdin(f, false)
}

func startStdin(f *os.File, stream bool) (*stdinFile, *os.File, error) {
	src, err := dupFD(f)
	if err != nil {
		return nil, nil, err
	}
	s := &stdinFile{src: src, keep: -1, w: -1, stream: stream, null: -1, wake: -1, lock: -1, peek: [2]int{-1, -1}, stop: make(chan struct{}), done: make(chan struct{})}
	if s.start, err = unix.Seek(s.src, 0, io.SeekCurrent); err != nil && !stream {
		unix.Close(s.src)
		return nil, nil, errNotSeekable // a file of /proc or /sys: relayed as a stream
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		unix.Close(s.src)
		return nil, nil, err
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	s.w = p[1]
	if s.keep, err = unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, 0); err == nil {
		err = unix.SetNonblock(s.w, true)
	}
	if err != nil {
		for _, fd := range []int{s.src, p[0], p[1], s.keep} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		return nil, nil, err
	}
	go s.copy()
	return s, os.NewFile(uintptr(p[0]), f.Name()), nil
}

// copy feeds the pipe from the file until its end, an error, or stop.
func (s *stdinFile) copy() {
	defer close(s.done)
	defer unix.Close(s.w)
	buf := make([]byte, pipeAtomic)
	for off := s.start; ; {
		n, err := s.read(buf, off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n <= 0 || err != nil {
			return
		}
		if !s.put(buf[:n]) {
			return
		}
		off += int64(n)
	}
}

// read reads the next bytes: with pread at off from a file; from a
// stream once it has some, waiting in steps so that stop is seen (0 and
// no error: stopped, or the end).
func (s *stdinFile) read(buf []byte, off int64) (int, error) {
	if !s.stream {
		return unix.Pread(s.src, buf, off)
	}
	for {
		select {
		case <-s.stop:
			return 0, nil
		default:
		}
		fds := []unix.PollFd{{Fd: int32(s.src), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 50)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return 0, err
		}
		if n > 0 {
			r, err := unix.Read(s.src, buf)
			if errors.Is(err, unix.EAGAIN) {
				continue // a non-blocking source another reader was first to
			}
			return r, err
		}
	}
}

// put writes b (at most pipeAtomic bytes) into the pipe whole, waiting
// for room; false when stopped or the pipe is gone. written counts it in
// the same step, so that taken never sees the one without the other.
func (s *stdinFile) put(b []byte) bool {
	for {
		s.mu.Lock()
		_, err := unix.Write(s.w, b)
		if err == nil {
			s.written += int64(len(b))
		}
		s.mu.Unlock()
		switch {
		case err == nil:
			return true
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EAGAIN):
			return false
		}
		select {
		case <-s.stop:
			return false
		default:
		}
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(s.w), Events: unix.POLLOUT}}, 50)
	}
}

// taken is how much of the file the program has read from the pipe so
// far. The program may have written into its own stdin pipe (a read end
// reopened for writing through /proc/self/fd/0): what it took is bounded
// by what went in, so it is never less than nothing nor more than was
// read.
func (s *stdinFile) taken() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left, err := pipeQueued(s.keep)
	if err != nil {
		return 0, false
	}
	return min(max(s.written-int64(left), 0), s.written), true
}

// finish, once the program's whole tree is gone (and the copies of its
// output are done: see offsetWriter), stops the copy and sets the
// caller's offset past what the program took from the pipe and wrote
// through the same open file description.
func (s *stdinFile) finish() {
	if s == nil {
		return
	}
	close(s.stop)
	s.wakeUp()
	<-s.done
	switch {
	case s.tee:
		s.giveBack()
	case !s.stream:
		if taken, ok := s.taken(); ok {
			s.mu.Lock()
			_, _ = unix.Seek(s.src, s.start+taken+s.out, io.SeekStart)
			s.mu.Unlock()
		}
	}
	for _, fd := range []int{s.keep, s.src, s.null, s.wake, s.peek[0], s.peek[1], s.lock} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	if s.owned != nil {
		s.owned.Close()
	}
}

// sharesWith reports whether f is open on the open file description of
// the regular file this stdinFile reads (`cmd <>file >&0`): the program's
// output into f then goes where os/exec's would (offsetWriter).
func (s *stdinFile) sharesWith(f *os.File) bool {
	if s == nil || s.stream || s.tee {
		return false
	}
	fd, ok := rawFD(f)
	if !ok {
		return false
	}
	same, ok := kcmpFile(s.src, fd)
	return ok && same
}

// offsetWriter writes the program's output into the caller's file whose
// open file description is also the program's stdin. A program handed one
// descriptor for both reads and writes at one offset: its output lands
// right after what it has read. stdinFile reads the file with pread, which
// leaves the offset where the program started, so each write goes with
// pwrite to where the program's offset would be (what it took from its
// stdin pipe so far plus what it wrote), and finish sets the offset past
// both. What a program writes over input it has not read yet still
// reaches it as it was (it was read ahead into the pipe).
type offsetWriter struct {
	f *os.File // the relay's own duplicate of the caller's file
	s *stdinFile
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	fd, ok := rawFD(w.f)
	if !ok {
		return 0, os.ErrClosed
	}
	taken, _ := w.s.taken()
	done := 0
	for done < len(p) {
		w.s.mu.Lock()
		n, err := unix.Pwrite(fd, p[done:], w.s.start+taken+w.s.out)
		if n > 0 {
			w.s.out += int64(n)
			done += n
		}
		w.s.mu.Unlock()
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
