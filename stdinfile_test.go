//go:build linux

package agentbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestStdinFileOffset: the caller's offset ends past what the program took
// from the pipe, never before where it started nor past what was read; a
// file with no offset is told apart (errNotSeekable).
func TestStdinFileOffset(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		take  int    // bytes the "program" reads from the pipe
		put   string // bytes it writes back into the pipe
		after int64  // the caller's offset after finish
	}{
		{"reads nothing", 0, "", 4},
		{"reads a line", 4, "", 8},
		{"reads all", 10, "", 14},
		{"writes back more than it read", 10, "0123456789abcdef", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Seek(4, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			s, rd, err := newStdinFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if tc.take > 0 {
				if _, err := io.ReadFull(rd, make([]byte, tc.take)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.put != "" {
				w, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(rd.Fd())), os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				w.WriteString(tc.put)
				w.Close()
			}
			rd.Close()
			s.finish()
			if off, _ := f.Seek(0, io.SeekCurrent); off != tc.after {
				t.Errorf("offset %d, want %d", off, tc.after)
			}
		})
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, _, err := newStdinFile(r); !errors.Is(err, errNotSeekable) {
		t.Errorf("a pipe as a file: %v, want errNotSeekable", err)
	}
	// As a stream it is relayed, and its copy stops with finish.
	s, rd, err := newStdinStream(r)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("hi")
	b := make([]byte, 2)
	if _, err := io.ReadFull(rd, b); err != nil || string(b) != "hi" {
		t.Errorf("relayed %q, %v", b, err)
	}
	rd.Close()
	s.finish()
	w.WriteString("later")
	got := make([]byte, 5)
	if n, _ := r.Read(got); string(got[:n]) != "later" {
		t.Errorf("after finish the caller read %q, want what it wrote (the copy stopped)", got[:n])
	}
}
