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

// TestStopNotice: at the approval prompt (inside withTerminalStops) nothing
// runs yet, so ^Z's notice must not claim that limits are being enforced.
func TestStopNotice(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prompt bool
		want   string
	}{
		{"program running", false, tstpNotice},
		{"at the approval prompt", true, tstpPromptNotice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// As withTerminalStops sets it (not called: its SIG_IGN
			// would be inherited by the commands later tests start).
			prompting.Store(tc.prompt)
			defer prompting.Store(false)
			got := stopNotice()
			if got != tc.want {
				t.Errorf("stopNotice() = %q, want %q", got, tc.want)
			}
		})
	}
}
