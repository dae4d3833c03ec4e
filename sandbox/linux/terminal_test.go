//go:build linux

package linux

import (
	"os"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestAnyTerminal: the caller's terminal among the program's standard
// streams is what turns the TIOCSCTTY rule on (seccompOptions.callerTerminal).
func TestAnyTerminal(t *testing.T) {
	_, slave := ptytest.Open(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pty, in, out, file := int(slave.Fd()), int(r.Fd()), int(w.Fd()), int(f.Fd())
	tests := []struct {
		name  string
		stdio [3]int
		want  bool
	}{
		{"pipes", [3]int{in, out, out}, false},
		{"a file", [3]int{in, file, file}, false},
		{"terminal in", [3]int{pty, out, out}, true},
		{"terminal out only", [3]int{in, out, pty}, true},
		{"all terminal", [3]int{pty, pty, pty}, true},
	}
	for _, tt := range tests {
		if got := anyTerminal(&tt.stdio); got != tt.want {
			t.Errorf("%s: anyTerminal = %v, want %v", tt.name, got, tt.want)
		}
	}
}
