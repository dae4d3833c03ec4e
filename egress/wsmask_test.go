package egress

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// wsFrames parses server frames (unmasked) into their fin bits, opcodes and
// payloads.
type wsFrame struct {
	fin     bool
	op      byte
	payload string
}

func parseFrames(t *testing.T, b []byte) []wsFrame {
	t.Helper()
	var out []wsFrame
	for len(b) > 0 {
		if len(b) < 2 || b[1]&0x80 != 0 {
			t.Fatalf("bad frame head % x", b[:min(len(b), 4)])
		}
		n, at := int(b[1]&0x7f), 2
		switch n {
		case 126:
			n, at = int(binary.BigEndian.Uint16(b[2:])), 4
		case 127:
			n, at = int(binary.BigEndian.Uint64(b[2:])), 10
		}
		out = append(out, wsFrame{b[0]&0x80 != 0, b[0] & 0x0f, string(b[at : at+n])})
		b = b[at+n:]
	}
	return out
}

// messages joins the data frames' payloads into messages, checking that
// each message's first frame carries its opcode and the others continue it.
func messages(t *testing.T, frames []wsFrame) (msgs, control []string) {
	t.Helper()
	var cur strings.Builder
	in := false
	for _, f := range frames {
		switch {
		case f.op >= 8:
			control = append(control, f.payload)
			continue
		case f.op == 0 && !in, f.op != 0 && in:
			t.Fatalf("frame sequence broken at %+v", f)
		}
		in = true
		cur.WriteString(f.payload)
		if f.fin {
			msgs = append(msgs, cur.String())
			cur.Reset()
			in = false
		}
	}
	if in {
		t.Fatalf("a message never ended: %q", cur.String())
	}
	return msgs, control
}

// TestWSMask: a WebSocket stream from a bound host, read through wsMask,
// keeps its messages (joined across fragments as the client joins them)
// and control frames, masks a value wherever fragment boundaries fall, also
// one that went out while the stream ran, and ends the stream on frames it
// cannot read as plain.
func TestWSMask(t *testing.T) {
	const value = "sk-live-0123456789abcdef"
	frame := func(fin bool, op byte, p string) []byte { return appendFrame(nil, fin, op, []byte(p)) }
	masked := strings.Repeat("*", len(value))
	cases := []struct {
		name     string
		in       [][]byte
		injected bool // the value went out before the stream
		late     int  // the value goes out after this many input frames (0: never, or before)
		msgs     []string
		control  []string
		err      error
	}{
		{name: "one frame, no value", in: [][]byte{frame(true, 1, "hello")}, msgs: []string{"hello"}},
		{name: "fragments, no value", in: [][]byte{frame(false, 1, "hel"), frame(true, 0, "lo")}, msgs: []string{"hello"}},
		{name: "empty last fragment", in: [][]byte{frame(false, 2, "abc"), frame(true, 0, "")}, msgs: []string{"abc"}},
		{name: "empty message", in: [][]byte{frame(true, 1, "")}, msgs: []string{""}},
		{name: "value in one frame", injected: true, in: [][]byte{frame(true, 1, "a "+value+" b")}, msgs: []string{"a " + masked + " b"}},
		{name: "value split across fragments", injected: true,
			in:   [][]byte{frame(false, 1, "x: "+value[:7]), frame(false, 0, value[7:15]), frame(true, 0, value[15:]+"!")},
			msgs: []string{"x: " + masked + "!"}},
		{name: "ping between fragments", injected: true,
			in:   [][]byte{frame(false, 1, value[:10]), frame(true, 9, "p "+value), frame(true, 0, value[10:])},
			msgs: []string{masked}, control: []string{"p " + masked}},
		{name: "value across messages", injected: true,
			in:   [][]byte{frame(true, 1, "a "+value[:9]), frame(true, 1, value[9:]+" b")},
			msgs: []string{"a " + masked[:9], masked[9:] + " b"}},
		{name: "value across messages, a ping between", injected: true,
			in:   [][]byte{frame(true, 2, value[:4]), frame(true, 10, "pong"), frame(false, 2, value[4:]), frame(true, 0, "")},
			msgs: []string{masked[:4], masked[4:]}, control: []string{"pong"}},
		{name: "empty messages behind a held tail", injected: true,
			in: [][]byte{frame(true, 1, "a "+value[:9]), frame(true, 1, ""), frame(true, 1, ""), frame(true, 2, ""),
				frame(true, 1, ""), frame(true, 1, value[9:]+" b")},
			msgs: []string{"a " + masked[:9], "", "", "", "", masked[9:] + " b"}},
		{name: "runs of empty messages past the bound", injected: true, in: alternatingEmpties(frame(true, 1, "a "+value[:9])),
			err: errWebSocketEmpties},
		{name: "value going out mid-stream", late: 1,
			in:   [][]byte{frame(true, 1, "before"), frame(false, 1, "v="+value[:5]), frame(true, 0, value[5:])},
			msgs: []string{"before", "v=" + masked}},
		{name: "long frame", injected: true, in: [][]byte{frame(true, 2, strings.Repeat("z", 70000)+value)},
			msgs: []string{strings.Repeat("z", 70000) + masked}},
		{name: "reserved bit", in: [][]byte{{0xc1, 0x01, 'x'}}, err: errWebSocketFrame},
		{name: "masked by the server", in: [][]byte{{0x81, 0x81, 1, 2, 3, 4, 'x'}}, err: errWebSocketFrame},
		{name: "control frame too long", in: [][]byte{append([]byte{0x89, 126, 0, 200}, make([]byte, 200)...)}, err: errWebSocketFrame},
		{name: "continuation of nothing", in: [][]byte{frame(true, 0, "x")}, err: errWebSocketFrame},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &credential{name: "K", injected: new(injectedFlag), value: func(context.Context) (vault.Secret, error) {
				return vault.NewSecret([]byte(value)), nil
			}}
			c.injected.set.Store(tc.injected)
			src := &frameFeed{frames: tc.in, at: tc.late, hook: func() { _ = c.markInjected() }}
			w := newWSMask(src, []*credential{c}, &echoMask{watch: true}, time.Second)
			out, err := io.ReadAll(w)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte(value[:8])) {
				t.Errorf("the value's start reached the client: %q", out)
			}
			msgs, control := messages(t, parseFrames(t, out))
			if strings.Join(msgs, "|") != strings.Join(tc.msgs, "|") || strings.Join(control, "|") != strings.Join(tc.control, "|") {
				t.Errorf("messages %q control %q, want %q %q", msgs, control, tc.msgs, tc.control)
			}
		})
	}
}

// alternatingEmpties is first followed by more runs of empty messages
// than wsMask queues, text and binary by turns.
func alternatingEmpties(first []byte) [][]byte {
	in := [][]byte{first}
	for i := range wsMaxEmptyRuns + 1 {
		in = append(in, appendFrame(nil, true, byte(1+i%2), nil))
	}
	return in
}

// frameFeed yields the frames one read each, a byte at a time for the
// first (a frame split across reads), and runs hook once at frames have
// been read.
type frameFeed struct {
	frames [][]byte
	at     int
	hook   func()
	n      int
	cur    []byte
}

func (f *frameFeed) Read(p []byte) (int, error) {
	for len(f.cur) == 0 {
		if f.at > 0 && f.n == f.at {
			f.hook()
			f.at = 0
		}
		if len(f.frames) == 0 {
			return 0, io.EOF
		}
		f.cur, f.frames = f.frames[0], f.frames[1:]
		f.n++
	}
	k := copy(p[:min(len(p), 1+len(f.cur)/2)], f.cur)
	f.cur = f.cur[k:]
	return k, nil
}

// TestWSMaskQuietRelease: a message whose end is held back, for what
// follows it, reaches the client whole once the upstream has sent nothing
// for the quiet time, without waiting for more.
func TestWSMaskQuietRelease(t *testing.T) {
	const value = "sk-live-0123456789abcdef"
	c := &credential{name: "K", injected: new(injectedFlag), value: func(context.Context) (vault.Secret, error) {
		return vault.NewSecret([]byte(value)), nil
	}}
	_ = c.markInjected()
	pr, pw := io.Pipe()
	defer pw.Close()
	w := newWSMask(pr, []*credential{c}, &echoMask{watch: true}, time.Second)
	w.quiet = 20 * time.Millisecond
	go func() { _, _ = pw.Write(appendFrame(nil, true, 1, []byte("hello, "+value[:5]))) }()
	got := make(chan []byte)
	go func() {
		var out []byte
		buf := make([]byte, 256)
		for {
			n, err := w.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil || len(out) >= 2 && len(out) >= 2+int(out[1]&0x7f) {
				got <- out
				return
			}
		}
	}()
	select {
	case out := <-got:
		msgs, _ := messages(t, parseFrames(t, out))
		if len(msgs) != 1 || msgs[0] != "hello, "+value[:5] {
			t.Errorf("messages %q", msgs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the message's held end never reached the client while the upstream was quiet")
	}
}
