//go:build linux

package agentbox

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGone: how much of the chunk another reader took is read from the
// head of the caller's pipe; bytes equal to the chunk's count as its own.
func TestGone(t *testing.T) {
	for _, tc := range []struct {
		chunk, head string
		want        int
	}{
		{"AAAA\n", "AAAA\n", 0},
		{"AAAA\n", "AAAA\nBBBB\n", 0},
		{"AAAA\n", "A\nBBBB\n", 3},  // a reader took 3 bytes
		{"AAAA\n", "BBBB\n", 5},     // all of it, then more came
		{"AAAA\n", "", 5},           // all of it
		{"aaaa", "aabb", 2},         // the rest of the chunk, then new bytes
		{"aaaa", "aaaa", 0},         // equal bytes: as good as the chunk's
		{"abab", "ab", 2},           // the least count that fits
		{"", "anything", 0},         // no chunk
		{"AAAA\n", "AAAA", 5},       // not the chunk (its last byte differs): all of it gone
		{"xyz", "yzq", 1},           // one byte taken
		{"xyz", "zxyz", 2},          // "z" left, and a new "xyz" after it
		{"hello", "ello hello", 1},  // one byte taken
		{"hello", "hello hello", 0}, // untouched
		{"hello", "llo", 2},         // two taken, nothing after
		{"hello", "lo", 3},
		{"hello", "hellohello", 0},
		{"hello", "ohello", 4},
		{"hello", "xhello", 5}, // something else first: all of it gone
		{"aaaa", "aaa", 1},     // fewer equal bytes: one gone
		{"aaaa", "aaaaaaaa", 0},
		{"\x00\x00", "\x00", 1},
		{"\x00\x00", "\x00\x00\x01", 0},
	} {
		if got := gone([]byte(tc.chunk), []byte(tc.head)); got != tc.want {
			t.Errorf("gone(%q, %q) = %d, want %d", tc.chunk, tc.head, got, tc.want)
		}
	}
}

// teeRelayWith starts a tee relay of a caller's pipe that holds first,
// and returns the caller's pipe, the relay and the program's end; all are
// closed when t ends.
func teeRelayWith(t *testing.T, first string) (r, w *os.File, s *stdinFile, prog *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	w.WriteString(first)
	s, prog, err = newStdinPipe(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Close() })
	return r, w, s, prog
}

// TestTeeRelaySharedPipe: another reader of the caller's pipe takes the
// chunk the relay put in the program's pipe before the program reads it:
// the relay takes it back (the program never sees it) and relays what
// comes next, taking off the caller's pipe only what the program read.
func TestTeeRelaySharedPipe(t *testing.T) {
	r, w, s, prog := teeRelayWith(t, "AAAA\n")
	time.Sleep(100 * time.Millisecond) // the relay has the chunk in the program's pipe
	buf := make([]byte, 100)
	if n, _ := r.Read(buf); string(buf[:n]) != "AAAA\n" {
		t.Fatalf("the other reader got %q", buf[:n])
	}
	w.WriteString("BBBB\n")
	time.Sleep(300 * time.Millisecond) // the relay has looked again
	prog.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := prog.Read(buf)
	if string(buf[:n]) != "BBBB\n" {
		t.Errorf("the program read %q (%v), want the next line only", buf[:n], err)
	}
	w.WriteString("CCCC\n")
	time.Sleep(100 * time.Millisecond)
	s.finish()
	r.SetReadDeadline(time.Now().Add(time.Second))
	if n, _ := r.Read(buf); string(buf[:n]) != "CCCC\n" {
		t.Errorf("left in the caller's pipe %q, want the line the program did not read", buf[:n])
	}
}

// TestTeeRelaysTakeTurns: two relays of one caller's pipe (two commands
// given the same stdin) take turns at its head: while the first one's
// program holds a chunk, the second hands its program nothing; once the
// first one's chunk is settled (read, or given back when it ends), the
// second relays what is left; a relay waiting for its turn stops at once
// with finish; every byte reaches one reader.
func TestTeeRelaysTakeTurns(t *testing.T) {
	const input = "AAAA\n"
	for _, tc := range []struct {
		name       string
		firstReads int
		firstEnds  bool
		secondGets string
		callerLeft string
	}{
		{"first reads all and goes on", 5, false, "", ""},
		{"first reads part and goes on", 2, false, "", "AA\n"},
		{"first reads part and ends", 2, true, "AA\n", ""},
		{"first reads nothing and ends", 0, true, input, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			w.WriteString(input)
			s1, prog1, err := newStdinPipe(r)
			if err != nil {
				t.Fatal(err)
			}
			defer prog1.Close()
			time.Sleep(100 * time.Millisecond) // the first relay has the chunk out
			s2, prog2, err := newStdinPipe(r)
			if err != nil {
				t.Fatal(err)
			}
			defer prog2.Close()
			if s1.lock < 0 || s2.lock < 0 {
				t.Fatal("the relays have no lock of their own on the caller's pipe")
			}
			if got := readFor(t, prog1, tc.firstReads, time.Second); got != input[:tc.firstReads] {
				t.Fatalf("the first program read %q", got)
			}
			if tc.firstEnds {
				s1.finish()
			}
			if got := readFor(t, prog2, 100, 400*time.Millisecond); got != tc.secondGets {
				t.Errorf("the second program read %q, want %q", got, tc.secondGets)
			}
			start := time.Now()
			s2.finish()
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Errorf("finish of the relay waiting for its turn took %v", d)
			}
			if !tc.firstEnds {
				s1.finish()
			}
			if got := readFor(t, r, 100, 100*time.Millisecond); got != tc.callerLeft {
				t.Errorf("left in the caller's pipe %q, want %q", got, tc.callerLeft)
			}
		})
	}
}

// readFor reads up to n bytes from f for d at most.
func readFor(t *testing.T, f *os.File, n int, d time.Duration) string {
	t.Helper()
	var got []byte
	deadline := time.Now().Add(d)
	for len(got) < n {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
		k, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if k <= 0 {
			break
		}
		buf := make([]byte, n-len(got))
		m, err := unix.Read(int(f.Fd()), buf)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if m <= 0 || err != nil {
			break
		}
		got = append(got, buf[:m]...)
	}
	return string(got)
}

// TestTeeRelayNarrowsEnlargedPipe: a program that makes its stdin pipe
// larger while it holds an unread chunk gets it back at one page, so that
// the relay waits in poll for "empty" again (enlarged); the chunk is
// still there for it.
func TestTeeRelayNarrowsEnlargedPipe(t *testing.T) {
	_, _, s, prog := teeRelayWith(t, "AAAA\n")
	time.Sleep(100 * time.Millisecond) // the chunk is in the program's pipe
	fd := int(prog.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, 1<<16); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the relay has looked again
	size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil || size != pipeAtomic {
		t.Errorf("the program's pipe holds %d bytes (%v), want one page again", size, err)
	}
	if got := readFor(t, prog, 100, 200*time.Millisecond); got != "AAAA\n" {
		t.Errorf("the program read %q", got)
	}
	s.finish()
}
