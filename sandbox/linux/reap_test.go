//go:build linux

package linux

import (
	"os"
	"testing"
)

func TestStatParent(t *testing.T) {
	for _, tt := range []struct {
		stat string
		ppid int
		ok   bool
	}{
		{"42 (sh) S 7 42 42 0 -1", 7, true},
		{"42 (a) b) (c) S 9 1 1", 9, true}, // a name with ") (" in it
		{"42 (x y) R 1", 1, true},
		{"42 (sh) S", 0, false},
		{"42 sh S 7", 0, false},
	} {
		ppid, ok := statParent([]byte(tt.stat))
		if ppid != tt.ppid || ok != tt.ok {
			t.Errorf("statParent(%q) = %d, %v; want %d, %v", tt.stat, ppid, ok, tt.ppid, tt.ok)
		}
	}
}

// TestDescendants: the walk finds this process's children through /proc.
func TestDescendants(t *testing.T) {
	p, err := os.StartProcess("/bin/sleep", []string{"sleep", "5"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Kill(); _, _ = p.Wait() }()
	found := false
	for _, pid := range descendants(os.Getpid()) {
		found = found || pid == p.Pid
	}
	if !found {
		t.Errorf("descendants of %d miss its child %d", os.Getpid(), p.Pid)
	}
	if ppid, ok := procParent(p.Pid); !ok || ppid != os.Getpid() {
		t.Errorf("procParent(%d) = %d, %v", p.Pid, ppid, ok)
	}
}
