package egress

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// A WebSocket message may come in fragments, each a frame with a head of
// its own: a value split across two of them has a frame's head in its
// middle on the wire, where no mask of the raw stream finds it, and the
// client joins the fragments and reads it whole (red-team round 55); an
// upstream may also split what it repeats across messages, which a client
// joins as well (round 56). So the stream an upgrade to WebSocket brings
// from a host credentials are bound to is read frame by frame (RFC 6455,
// section 5), and the payloads of its data messages are masked as one
// stream: what has arrived is sent on less its last bytes, held back to be
// masked with what comes next (how many depends on the values' lengths
// alone, never on the bytes), in frames that keep the messages as they
// were; a message whose end is held is sent as fragments, its last one
// when what follows it has come. As a maskReader does, held bytes are
// released as they are once the upstream has sent nothing for maskQuiet.
// Control frames (close, ping, pong), which may come between fragments,
// are masked whole and sent on at once (a close after what is held). A
// frame the proxy cannot read as plain (one with a reserved bit set: a
// compression it did not let the client ask for; one the server masked; a
// control frame fragmented or longer than 125 bytes) ends the stream.

// wsChunk bounds what one read of a data frame's payload takes.
const wsChunk = 32 << 10

// wsMaxEmptyRuns bounds the runs of empty messages queued behind a held
// tail (see wsMessage.repeat).
const wsMaxEmptyRuns = 1024

var errWebSocketFrame = errors.New("the upstream's WebSocket frame cannot be checked for a credential (a reserved bit or a mask set, a continuation of no message, or a control frame fragmented or longer than 125 bytes)")

var errWebSocketEmpties = errors.New("the upstream sent more than 1024 runs of empty WebSocket messages of alternating types while a credential's possible start was held back; the connection is closed")

// wsMask reads the upstream's side of a WebSocket, masking it (see above).
// Values that go out on other connections while it runs are taken into
// the mask as they do (see lateMask).
type wsMask struct {
	src     *bufio.Reader
	echoes  []*credential
	mask    *echoMask
	timeout time.Duration
	quiet   time.Duration

	out   []byte      // frames ready for the client
	held  []byte      // data messages' payload not yet sent, in order
	base  int         // how many bytes of the stream's payload held no longer holds
	msgs  []wsMessage // the messages held holds bytes of, oldest first
	empty int         // how many of msgs are empty messages (runs of them)
	inMsg bool        // the last of msgs has not ended yet
	left  uint64      // what is left to read of the data frame being read
	fin   bool        // that frame ends its message
	peek  chan error  // a wait for the next byte still going on, or nil
	err   error
}

// wsMessage is a data message some of whose payload is held. Where it
// begins and ends are offsets in the whole stream of payloads (held
// begins at base), so that sending some of held on moves no message.
//
// Empty messages add no bytes, so while the end of a message is held,
// back to back empty ones would queue without bound (red-team round 60:
// 150,000 of them, 900 KB from an echo, cost the proxy 11 s of CPU): an
// empty message of the same type as the empty one before it is counted
// in that one's repeat instead, and runs of them are bounded.
type wsMessage struct {
	op      byte // its opcode, for its first frame sent
	started bool // a frame of it was sent
	start   int  // where it begins
	end     int  // where it ends, or -1 while it has not ended
	repeat  int  // how many empty messages like it follow it
}

func (m *wsMessage) isEmpty() bool { return m.end == m.start }

func newWSMask(src io.Reader, echoes []*credential, mask *echoMask, timeout time.Duration) *wsMask {
	return &wsMask{src: bufio.NewReaderSize(src, 16<<10), echoes: echoes, mask: mask, timeout: timeout, quiet: maskQuiet}
}

func (w *wsMask) Read(p []byte) (int, error) {
	for len(w.out) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		w.err = w.next()
	}
	n := copy(p, w.out)
	w.out = w.out[n:]
	return n, nil
}

// next reads the next piece of the stream, a frame's head with its
// payload's first chunk or the next chunk of a data frame's payload, and
// adds what it lets through to out: a frame the upstream claims to be
// long is passed on a chunk at a time, never held whole (red-team round
// 56). While bytes are held and nothing comes for quiet, it releases them.
func (w *wsMask) next() error {
	if len(w.held) > 0 && !w.arrived() {
		w.release(true)
		return nil
	}
	if w.peek != nil {
		err := <-w.peek
		w.peek = nil
		if err != nil {
			return w.atEnd(err)
		}
	}
	if w.left > 0 {
		return w.chunk()
	}
	var h [2]byte
	if _, err := io.ReadFull(w.src, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return err
		}
		return w.atEnd(err)
	}
	fin, rsv, op, masked := h[0]&0x80 != 0, h[0]&0x70, h[0]&0x0f, h[1]&0x80 != 0
	if rsv != 0 || masked {
		return errWebSocketFrame
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(w.src, b[:]); err != nil {
			return err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(w.src, b[:]); err != nil {
			return err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if op >= 8 { // control: at most 125 bytes, never fragmented
		if n > 125 || !fin {
			return errWebSocketFrame
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(w.src, payload); err != nil {
			return err
		}
		if err := w.update(); err != nil {
			return err
		}
		if op == 8 && !w.inMsg {
			w.release(true) // a close ends the stream: what is held goes first
		}
		w.mask.maskInPlace(payload, "a WebSocket control frame")
		w.out = appendFrame(w.out, true, op, payload)
		return nil
	}
	switch {
	case op == 0 && !w.inMsg, op != 0 && w.inMsg:
		return errWebSocketFrame
	case op != 0:
		w.inMsg = true
		w.msgs = append(w.msgs, wsMessage{op: op, start: w.base + len(w.held), end: -1})
	}
	w.left, w.fin = n, fin
	return w.chunk()
}

// arrived reports whether a byte of the next frame has come, waiting quiet
// at most; a wait that times out goes on, for next to take up.
func (w *wsMask) arrived() bool {
	if w.src.Buffered() > 0 {
		return true
	}
	if w.peek == nil {
		w.peek = make(chan error, 1)
		go func(br *bufio.Reader, c chan error) {
			_, err := br.Peek(1)
			c <- err
		}(w.src, w.peek)
	}
	t := time.NewTimer(w.quiet)
	defer t.Stop()
	select {
	case err := <-w.peek:
		w.peek = nil
		if err != nil {
			w.peek = make(chan error, 1)
			w.peek <- err // the end: next takes it up, after the release
			return false
		}
		return true
	case <-t.C:
		return false
	}
}

// chunk reads the next chunk of the data frame being read (none of an
// empty one) and sends on what it may.
func (w *wsMask) chunk() error {
	k := min(w.left, wsChunk)
	at := len(w.held)
	w.held = append(w.held, make([]byte, k)...)
	if _, err := io.ReadFull(w.src, w.held[at:]); err != nil {
		return err
	}
	w.left -= k
	if err := w.update(); err != nil {
		return err
	}
	if w.fin && w.left == 0 {
		w.inMsg = false
		if err := w.ended(); err != nil {
			return err
		}
	}
	w.release(false)
	return nil
}

// ended notes that the last of msgs has ended, counting an empty message
// in the repeat of an empty one like it before it.
func (w *wsMask) ended() error {
	m := &w.msgs[len(w.msgs)-1]
	m.end = w.base + len(w.held)
	if !m.isEmpty() {
		return nil
	}
	if k := len(w.msgs); k > 1 {
		if prev := &w.msgs[k-2]; prev.isEmpty() && prev.op == m.op && prev.end == m.end && !prev.started {
			prev.repeat++
			w.msgs = w.msgs[:k-1]
			return nil
		}
	}
	if w.empty++; w.empty > wsMaxEmptyRuns {
		return errWebSocketEmpties
	}
	return nil
}

// update brings the mask up to date with the values that went out.
func (w *wsMask) update() error {
	if ce := recallInto(w.echoes, w.mask, w.timeout); ce != nil {
		return ce
	}
	return nil
}

// release masks what is held and sends on all of it (all, at the stream's
// end or after a pause) or all but the last keep bytes, in frames that
// keep the messages' bounds.
func (w *wsMask) release(all bool) {
	keep := 0
	if !all {
		keep = min(len(w.held), max(0, w.mask.longestForm()-1))
	}
	w.mask.maskAfter(w.held, 0, keep, "a WebSocket message")
	n := len(w.held) - keep
	at := 0
	for len(w.msgs) > 0 {
		m := &w.msgs[0]
		to, done := n, m.end >= 0 && m.end-w.base <= n
		if done {
			to = m.end - w.base
		}
		if to > at || done {
			op := m.op
			if m.started {
				op = 0
			}
			w.out = appendFrame(w.out, done, op, w.held[at:to])
			m.started = true
			at = to
		}
		if !done {
			break
		}
		for range m.repeat {
			w.out = appendFrame(w.out, true, m.op, nil)
		}
		if m.isEmpty() {
			w.empty--
		}
		w.msgs = w.msgs[1:]
	}
	rest := copy(w.held, w.held[n:])
	clear(w.held[rest:])
	w.held = w.held[:rest]
	w.base += n
}

// atEnd is the stream's end: what is held is sent on (a message cut off
// as a last fragment cannot be), and the end is returned.
func (w *wsMask) atEnd(err error) error {
	w.release(true)
	return err
}

// wipe clears what the reader holds. A wait for the next byte still going
// on ends when the stream is closed.
func (w *wsMask) wipe() {
	clear(w.held)
	clear(w.out)
}

// appendFrame appends a server's (unmasked) frame to b.
func appendFrame(b []byte, fin bool, op byte, payload []byte) []byte {
	h0 := op
	if fin {
		h0 |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b = append(b, h0, byte(n))
	case n <= 0xffff:
		b = append(b, h0, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, h0, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// isWebSocket reports whether resp switches to the WebSocket protocol.
func isWebSocket(resp *http.Response) bool {
	for _, v := range resp.Header.Values("Upgrade") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "websocket") {
				return true
			}
		}
	}
	return false
}
