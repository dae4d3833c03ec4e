//go:build linux

package agentbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWrapStreamsRelays: Wrap hands os/exec a boundedWriter into a relay
// of the caller's file for every output that is no device, as Start
// does (relayed): a pipe's or a FIFO's relay is opened anew non-blocking
// and takes a write deadline (so a write given up can be ended); a
// regular file's is a copy of its descriptor; a device and a writer that
// is no file are left as they are.
func TestWrapStreamsRelays(t *testing.T) {
	dir := t.TempDir()
	open := map[string]func(t *testing.T) io.Writer{
		"pipe": func(t *testing.T) io.Writer {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return w
		},
		"fifo": func(t *testing.T) io.Writer {
			p := filepath.Join(dir, "fifo")
			if err := unix.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return w
		},
		"file": func(t *testing.T) io.Writer {
			f, err := os.Create(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
		"device": func(t *testing.T) io.Writer {
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
		"buffer": func(*testing.T) io.Writer { return new(bytes.Buffer) },
	}
	for _, tc := range []struct {
		out      string
		bounded  bool // cmd.Stdout becomes a boundedWriter
		deadline bool // its relay takes a write deadline
	}{
		{out: "pipe", bounded: true, deadline: true},
		{out: "fifo", bounded: true, deadline: true},
		{out: "file", bounded: true},
		{out: "device"},
		{out: "buffer"},
	} {
		t.Run(tc.out, func(t *testing.T) {
			cmd := exec.Command("/bin/true")
			orig := open[tc.out](t)
			cmd.Stdout = orig
			s, relays, err := wrapStreams(cmd, make(chan struct{}))
			if err != nil {
				t.Fatal(err)
			}
			defer relays.close()
			defer s.finish()
			_, bounded := cmd.Stdout.(*boundedWriter)
			if bounded != tc.bounded {
				t.Fatalf("cmd.Stdout is %T, want a boundedWriter: %v", cmd.Stdout, tc.bounded)
			}
			if !bounded {
				if len(relays) != 0 || cmd.Stdout != orig {
					t.Fatalf("%d relays, cmd.Stdout %T: want the caller's writer as it is", len(relays), cmd.Stdout)
				}
				return
			}
			if len(relays) != 1 || relays[0] == orig {
				t.Fatalf("relays %v: want one relay of its own", relays)
			}
			err = relays[0].f.SetWriteDeadline(time.Now())
			if got := err == nil; got != tc.deadline {
				t.Fatalf("relay's write deadline: %v, want one taken: %v", err, tc.deadline)
			}
		})
	}
}

// TestWrapAbandonEndsStalledWrite: a boundedWriter's write blocked on a
// full pipe of the caller's is ended, not left in the background, when
// Wrap gives the copy up (abandon closed, outputRelays.abandon): nothing
// of it reaches the pipe once the reader resumes.
func TestWrapAbandonEndsStalledWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wfd, _ := rawFD(w)
	pipeSize, err := unix.FcntlInt(uintptr(wfd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, pipeSize)); err != nil { // the reader has stalled
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/true")
	cmd.Stdout = w
	abandon := make(chan struct{})
	_, relays, err := wrapStreams(cmd, abandon)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cmd.Stdout.Write([]byte("late"))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	close(abandon)
	relays.abandon()
	if err := <-done; !errors.Is(err, errAbandoned) {
		t.Fatalf("write given up: %v, want errAbandoned", err)
	}
	relays.close()
	time.Sleep(100 * time.Millisecond) // a write left in the background would land now
	rfd, _ := rawFD(r)
	total := 0
	for buf := make([]byte, 1<<16); ; {
		n, err := unix.Read(rfd, buf) // r is non-blocking (os.Pipe): EAGAIN once empty
		if n <= 0 || err != nil {
			break
		}
		total += n
	}
	if total != pipeSize {
		t.Fatalf("read %d bytes back, want only the %d the caller wrote", total, pipeSize)
	}
}
