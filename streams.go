package agentbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// streamKind is what a file the caller hands the program as a standard
// stream is (streamOf). The program gets the file's own descriptor only
// where nothing it can do through it reaches beyond its policy:
//
//   - a character device (a terminal, /dev/null) goes as it is (its
//     state is put back after the run: see sharedFile);
//   - a socket is relayed through a pipe of agentbox's: a socket belongs
//     to the network namespace it was made in, and the program could
//     disconnect it and connect it anywhere the host can reach, or send
//     from it to any address;
//   - so is a pipe, anonymous or a named FIFO (as stdin, without reading
//     ahead: newStdinPipe): its inode is its creator's, and a program
//     running as the caller could reopen it through /proc/self/fd for
//     the other direction (write into the caller's stdin, which a host
//     shell reading its script from it would run; read back the caller's
//     earlier output), resize it or change its mode;
//   - so is a regular file (as stdin, by stdinFile): its descriptor is the
//     host's, outside the sandbox's mounts, and the program, as its owner,
//     could change its mode, owner, times and extended attributes through
//     it (chmod 0666 of a private file redirected in);
//   - anything else is refused: a directory's descriptor would let the
//     program open names relative to it in the host's mounts, past the
//     sandbox's masks and read-only binds; a block device, a link opened
//     with O_PATH or an anonymous inode (eventfd, pidfd) is no stream.
type streamKind int

const (
	streamDevice streamKind = iota + 1
	streamPipe
	streamFIFO
	streamSocket
	streamFile
)

// relayed returns a copy of the caller's f, of kind, for agentbox to
// relay through a pipe of its own, nil when f goes to the program as it is
// (streamKind). The copy lets the caller close f after Start, as with
// os/exec. A regular file as stdin is relayed by stdinFile instead.
// A pipe or FIFO is opened anew where it can be (reopenWriter), so that
// a copy blocked on a reader that stopped can be given up for good
// (relay.abandon) instead of pinning its descriptors and goroutine until
// the reader comes back.
func relayed(f *os.File, kind streamKind) (*relay, error) {
	if kind == streamDevice {
		return nil, nil
	}
	if kind == streamPipe || kind == streamFIFO {
		if w := reopenWriter(f); w != nil {
			return newRelay(w), nil
		}
	}
	fd, err := dupFD(f)
	if err != nil {
		return nil, err
	}
	return newRelay(os.NewFile(uintptr(fd), f.Name())), nil
}

// relay is the copy of a caller's file (relayed) that the copy of a
// program's output writes. A write holds busy, so that abandon can wait
// for the write in progress to have ended, not only interrupt it: the past
// write deadline that abandon sets wakes a write blocked on a full pipe,
// but the runtime lets that write go on when the pipe turns writable
// before the writing goroutine runs (the caller's reader taking what its
// pipe held, right after Wait returned), and the ended command's bytes
// would reach the caller's pipe after Wait. busy is a channel, not a
// mutex, so that the wait for it can be bounded (writeGiveUp).
type relay struct {
	f         *os.File
	busy      chan struct{} // holds a token while a write is in progress
	abandoned atomic.Bool
}

func newRelay(f *os.File) *relay {
	return &relay{f: f, busy: make(chan struct{}, 1)}
}

func (r *relay) Write(p []byte) (int, error) {
	r.busy <- struct{}{}
	defer func() { <-r.busy }()
	if r.abandoned.Load() {
		return 0, errAbandoned
	}
	return r.f.Write(p)
}

// writeGiveUp is how long abandon waits, at most, for the write it
// interrupted to return. Such a write returns at once; one that does not
// is blocked in the kernel where no deadline reaches (a dup of the
// caller's description that the caller turned blocking, as os.File.Fd
// does, after the poller took it), and Wait and Wrap's cleanup must not
// wait for the caller's reader then.
const writeGiveUp = time.Second

// abandon gives the relay up (outputRelays.abandon).
func (r *relay) abandon() { outputRelays{r}.abandon() }

// interrupt wakes the write in progress, if any, with a past write
// deadline, and reports whether the file took one: a relay opened
// non-blocking (reopenWriter) does, a copied blocking descriptor does not
// (os.ErrNoDeadline).
func (r *relay) interrupt() bool { return r.f.SetWriteDeadline(time.Now()) == nil }

// endWrites makes every later write fail, once the interrupted write has
// returned (when interrupted, until at the latest), so that nothing of
// the ended command reaches the caller's pipe after its Wait. A write
// that was not interrupted, or did not return by until, goes on: it ends
// when its reader takes it or fails, and is not waited for.
func (r *relay) endWrites(interrupted bool, until time.Time) {
	defer r.abandoned.Store(true)
	if !interrupted {
		return
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case r.busy <- struct{}{}: // the interrupted write has returned
		r.abandoned.Store(true)
		<-r.busy
	case <-t.C:
	}
}

// close closes the relay's file. A write still in progress on it (one
// abandon gave up on: relay.endWrites) is not waited for: os.File's Close
// of a descriptor the poller took waits for it, and Wrap's cleanup would
// wait for the caller's reader; the file is closed once the write ends.
func (r *relay) close() {
	if r == nil {
		return
	}
	select {
	case r.busy <- struct{}{}: // no write in progress
		r.f.Close()
		<-r.busy
	default:
		go r.f.Close()
	}
}

// outputRelays are the relays of the caller's files that the copies of a
// program's output write, Start's and Wrap's alike.
type outputRelays []*relay

// abandon ends the relays' writes once the copies are given up: the
// writes in progress are interrupted first, all of them, and then waited
// for, writeGiveUp at most in all (relay.endWrites), so that the copies'
// goroutines and buffers are not left behind for a reader that stopped (a
// long-running caller would pay for them with every command).
func (rs outputRelays) abandon() {
	interrupted := make([]bool, len(rs))
	for i, r := range rs {
		interrupted[i] = r.interrupt()
	}
	until := time.Now().Add(writeGiveUp)
	for i, r := range rs {
		r.endWrites(interrupted[i], until)
	}
}

// close closes the relays (relay.close).
func (rs outputRelays) close() {
	for _, r := range rs {
		r.close()
	}
}

// sameStream reports whether a and b are files open on one open file
// description (os.Stdout and os.Stderr after 2>&1): the program must then
// get one pipe for both, or the order between them is lost.
func sameStream(a, b io.Writer) bool {
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	return ok1 && ok2 && sameDescription(fa, fb)
}

// wrapStreams makes the standard streams of a wrapped command what
// streamKind allows: a regular file, a pipe or a FIFO as Stdin goes
// through a stdinFile (returned, to finish once the command's tree is
// gone); anything but a device as Stdout or Stderr goes to os/exec as a
// plain writer, which it copies through a pipe of its own (one for both
// when they share an open file description), through a boundedWriter
// that gives up once abandon is closed, into a relay of the caller's file
// (relayed; returned, to abandon and close as Process does); a file that
// is no stream refuses the call. A socket as Stdin is refused: os/exec's
// Wait would wait for its end of input, which may never come after the
// command exits; use Start, which relays it.
func wrapStreams(cmd *exec.Cmd, abandon <-chan struct{}) (*stdinFile, outputRelays, error) {
	// Every stream is judged before anything starts.
	var in streamKind
	if f, ok := cmd.Stdin.(*os.File); ok {
		kind, err := streamOf(f)
		switch {
		case err != nil:
			return nil, nil, configErr("Wrap", "cmd.Stdin: %v", err)
		case kind == streamSocket:
			return nil, nil, configErr("Wrap", "cmd.Stdin is a socket, which the command could connect anywhere the host can reach; pass a pipe, or use Start, which relays it")
		}
		in = kind
	}
	var kinds [2]streamKind
	for i, w := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		if f, ok := w.(*os.File); ok {
			kind, err := streamOf(f)
			if err != nil {
				return nil, nil, configErr("Wrap", "cmd.Stdout or cmd.Stderr: %v", err)
			}
			kinds[i] = kind
		}
	}
	same := sameStream(cmd.Stdout, cmd.Stderr)
	s, err := wrapStdin(cmd, in)
	if err != nil {
		return nil, nil, err
	}
	relays, err := wrapOutputs(cmd, kinds, same, s, abandon)
	if err != nil {
		s.finish()
		return nil, nil, err
	}
	return s, relays, nil
}

// wrapOutputs gives each of cmd.Stdout and cmd.Stderr that is a file of
// kinds (0: no file) but a device a boundedWriter into a relay of its own
// (relayed, as Start does), one for both when they are the same stream.
func wrapOutputs(cmd *exec.Cmd, kinds [2]streamKind, same bool, s *stdinFile, abandon <-chan struct{}) (outputRelays, error) {
	var relays outputRelays
	for i, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if kinds[i] == 0 || i == 1 && same {
			continue
		}
		f := (*w).(*os.File)
		relay, err := relayed(f, kinds[i])
		if err != nil {
			relays.close()
			return nil, err
		}
		if relay == nil {
			continue // a device goes as it is
		}
		relays = append(relays, relay)
		var pw io.Writer = relay
		if s.sharesWith(f) {
			pw = &offsetWriter{f: relay.f, s: s} // os/exec's copy ends before cmd.Wait returns, before finish
		}
		*w = &boundedWriter{w: pw, abandon: abandon}
	}
	if same {
		cmd.Stderr = cmd.Stdout // one pipe for both, as os/exec does for one writer
	}
	return relays, nil
}

// wrapStdin puts a stdinFile between the caller's file or pipe (of kind
// in) and the wrapped command.
func wrapStdin(cmd *exec.Cmd, in streamKind) (*stdinFile, error) {
	f, _ := cmd.Stdin.(*os.File)
	var s *stdinFile
	var rd *os.File
	var err error
	switch in {
	case streamFile:
		s, rd, err = newStdinFile(f)
		if errors.Is(err, errNotSeekable) {
			cmd.Stdin = struct{ io.Reader }{f} // a file of /proc or /sys: os/exec copies it
			return nil, nil
		}
	case streamPipe, streamFIFO:
		s, rd, err = newStdinPipe(f)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	readableByName(rd)
	s.owned, cmd.Stdin = rd, rd
	return s, nil
}

// boundedWriter is the writer os/exec copies a wrapped command's output
// into: once abandon is closed (a while after a timeout or an ended ctx
// killed the sandbox, or at cleanup), a write blocked on a consumer that
// does not read (a stuck socket, a stalled pipe) is given up, so that
// cmd.Wait returns. cmd.WaitDelay could not do it: it closes os/exec's
// pipe, not the copy's write into the caller's file; and it would cut the
// output of a slow consumer of a command that ended normally. The write
// given up is ended too where w is a relay that takes a write deadline
// (outputRelays.abandon); into any other writer it goes on in the
// background until the consumer takes it or fails.
type boundedWriter struct {
	w       io.Writer
	abandon <-chan struct{}
}

// errAbandoned: the write was given up (boundedWriter).
var errAbandoned = errors.New("agentbox: output abandoned after the command was ended")

func (b *boundedWriter) Write(p []byte) (int, error) {
	select {
	case <-b.abandon:
		return 0, errAbandoned
	default:
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	q := append([]byte(nil), p...) // a write given up must not use os/exec's buffer
	go func() {
		n, err := b.w.Write(q)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-b.abandon:
		return 0, errAbandoned
	}
}
