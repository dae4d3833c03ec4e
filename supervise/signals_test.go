//go:build unix

package supervise

import (
	"os"
	"syscall"
	"testing"
)

// TestIsTerminate: every stop signal the CLI catches and relays starts the
// grace period (and a second one kills); others are only forwarded.
func TestIsTerminate(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		want bool
	}{
		{syscall.SIGINT, true},
		{syscall.SIGTERM, true},
		{syscall.SIGHUP, true},
		{syscall.SIGQUIT, true},
		{syscall.SIGUSR1, false},
		{syscall.SIGCONT, false},
		{syscall.SIGWINCH, false},
	} {
		if got := isTerminate(tc.sig); got != tc.want {
			t.Errorf("isTerminate(%v) = %v, want %v", tc.sig, got, tc.want)
		}
	}
}
