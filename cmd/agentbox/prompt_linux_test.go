package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestReadTerminal: on a terminal where job control does not apply (a pty
// that is not the test's controlling terminal: terminalForeground), the
// prompt is asked once and the read's answer or failure returned; an
// ended context gives up with errPromptInterrupted, before the read or
// during it, and puts back the modes the read changed (echo off).
func TestReadTerminal(t *testing.T) {
	failed := errors.New("read failed")
	for _, tc := range []struct {
		name      string
		cancel    bool // the context ends before the prompt
		cancelMid bool // the context ends during the read
		read      func(fd int) (string, error)
		want      string
		wantErr   error
		wantAsks  int
	}{
		{"answer", false, false, func(int) (string, error) { return "y", nil }, "y", nil, 1},
		{"read fails", false, false, func(int) (string, error) { return "", failed }, "", failed, 1},
		{"ended before", true, false, func(int) (string, error) { return "y", nil }, "", errPromptInterrupted, 0},
		{"ended during, echo off", false, true, func(fd int) (string, error) {
			st, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
			st.Lflag &^= unix.ECHO
			_ = unix.IoctlSetTermios(fd, unix.TCSETS, st)
			time.Sleep(time.Hour) // a read of a terminal that never ends
			return "", nil
		}, "", errPromptInterrupted, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// readTerminal leaves them ignored, which exec passes on.
			defer defaultTerminalStops()
			_, slave := ptytest.Open(t)
			fd := int(slave.Fd())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			asks := 0
			read := func() (string, error) {
				if tc.cancelMid {
					time.AfterFunc(200*time.Millisecond, cancel)
				}
				return tc.read(fd)
			}
			got, err := readTerminal(ctx, fd, func() { asks++ }, read)
			if got != tc.want || !errors.Is(err, tc.wantErr) || asks != tc.wantAsks {
				t.Errorf("got %q, %v after %d prompts; want %q, %v after %d", got, err, asks, tc.want, tc.wantErr, tc.wantAsks)
			}
			if tc.cancelMid {
				// The read's goroutine may still run: wait for its change.
				time.Sleep(100 * time.Millisecond)
			}
			if st, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil || st.Lflag&unix.ECHO == 0 {
				t.Errorf("echo left off (%v)", err)
			}
		})
	}
}
