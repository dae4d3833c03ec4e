package egress

import (
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
// client joins the fragments and reads it whole (red-team round 55). So
// the stream an upgrade to WebSocket brings from a host credentials are
// bound to is read frame by frame (RFC 6455, section 5), and a message's
// payload is masked as one stream: each fragment is sent on less its last
// bytes, held back to be masked with the next one (how many depends on the
// values' lengths alone, never on the bytes), and the message's last
// fragment takes what is held. Control frames (close, ping, pong), which
// may come between fragments, are masked whole and sent on at once. A
// frame the proxy cannot read as plain (one with a reserved bit set: a
// compression it did not let the client ask for; one the server masked)
// ends the stream.

// wsChunk bounds what one read of a data frame's payload takes.
const wsChunk = 32 << 10

var errWebSocketFrame = errors.New("the upstream's WebSocket frame cannot be checked for a credential (a reserved bit or a mask set, a continuation of no message, or a control frame fragmented or longer than 125 bytes)")

// wsMask reads the upstream's side of a WebSocket, masking it (see above).
// Values that go out on other connections while it runs are taken into
// the mask as they do (see lateMask).
type wsMask struct {
	src     io.Reader
	echoes  []*credential
	mask    *echoMask
	timeout time.Duration

	out     []byte // frames ready for the client
	held    []byte // the message's payload not yet sent
	inMsg   bool   // a message has begun (its first frame read, FIN not yet)
	opcode  byte   // the message's, for its first frame sent
	started bool   // a frame of the message was sent
	left    uint64 // what is left to read of the data frame being read
	fin     bool   // that frame ends its message
	err     error
}

func (w *wsMask) Read(p []byte) (int, error) {
	for len(w.out) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		w.err = w.frame()
	}
	n := copy(p, w.out)
	w.out = w.out[n:]
	return n, nil
}

// frame reads the next piece of the stream, a frame's head with its
// payload's first chunk or the next chunk of a data frame's payload, and
// adds what it lets through to out: a frame the upstream claims to be
// long is passed on a chunk at a time, never held whole (red-team round
// 56).
func (w *wsMask) frame() error {
	if w.left > 0 {
		return w.chunk()
	}
	var h [2]byte
	if _, err := io.ReadFull(w.src, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return err
		}
		return w.flushAtEnd(err)
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
		w.mask.maskInPlace(payload, "a WebSocket control frame")
		w.out = appendFrame(w.out, true, op, payload)
		return nil
	}
	switch {
	case op == 0 && !w.inMsg, op != 0 && w.inMsg:
		return errWebSocketFrame
	case op != 0:
		w.inMsg, w.opcode, w.started = true, op, false
	}
	w.left, w.fin = n, fin
	return w.chunk()
}

// chunk reads the next chunk of the data frame being read (none of an
// empty one) and sends on what it may of the message.
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
	w.send(w.fin && w.left == 0)
	return nil
}

// update brings the mask up to date with the values that went out.
func (w *wsMask) update() error {
	if !pending(w.echoes, w.mask) {
		return nil
	}
	if ce := recallInto(w.echoes, w.mask, w.timeout); ce != nil {
		return ce
	}
	return nil
}

// send masks what is held of the message and sends it on as a frame, all
// of it at the message's end, all but the last keep bytes before.
func (w *wsMask) send(end bool) {
	keep := 0
	if !end {
		keep = min(len(w.held), w.keep())
	}
	w.mask.maskAfter(w.held, 0, keep, "a WebSocket message")
	n := len(w.held) - keep
	if n == 0 && !end {
		return // nothing to send yet; the message's end is always sent
	}
	w.out = appendFrame(w.out, end, w.nextOpcode(), w.held[:n])
	w.held = append(w.held[:0], w.held[n:]...)
	if end {
		w.inMsg = false
		clear(w.held)
		w.held = w.held[:0]
	}
}

// nextOpcode is the opcode of the message's next frame sent: its own for
// the first, continuation after.
func (w *wsMask) nextOpcode() byte {
	if w.started {
		return 0
	}
	w.started = true
	return w.opcode
}

// keep is how many bytes may begin a value that the next bytes end: one
// fewer than the longest form of a value may have.
func (w *wsMask) keep() int {
	return max(0, w.mask.longestForm()-1)
}

// flushAtEnd is the stream's end: a message cut off has what is held of
// it sent on, masked, as a last fragment cannot be; the end is returned.
func (w *wsMask) flushAtEnd(err error) error {
	if len(w.held) > 0 {
		w.mask.maskInPlace(w.held, "a WebSocket message")
		w.out = appendFrame(w.out, false, w.nextOpcode(), w.held)
		w.held = nil
	}
	return err
}

// wipe clears what the reader holds.
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
