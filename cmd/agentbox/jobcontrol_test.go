//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReadAgain: the --tty relay reads the user's terminal again only
// after job control's EIO in the background.
func TestReadAgain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		foreground bool
		want       bool
	}{
		{"background EIO", &os.PathError{Op: "read", Path: "/dev/tty", Err: unix.EIO}, false, true},
		{"foreground EIO (hang-up)", &os.PathError{Op: "read", Path: "/dev/tty", Err: unix.EIO}, true, false},
		{"background EOF", io.EOF, false, false},
		{"background other", errors.New("closed"), false, false},
		{"foreground EBADF", unix.EBADF, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := readAgain(tc.err, tc.foreground); got != tc.want {
				t.Errorf("readAgain(%v, %v) = %v, want %v", tc.err, tc.foreground, got, tc.want)
			}
		})
	}
}

// TestHoldStops: while held, SIGTSTP does not stop agentbox, and the
// notice says so once however many come.
func TestHoldStops(t *testing.T) {
	var notices atomic.Int32
	release := holdStops(func(s string) {
		if s != tstpNotice {
			t.Errorf("notice %q", s)
		}
		notices.Add(1)
	})
	defer release()
	for i := 0; i < 3; i++ {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTSTP); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for notices.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := notices.Load(); n != 1 {
		t.Errorf("%d notices for 3 SIGTSTP, want 1", n)
	}
}
