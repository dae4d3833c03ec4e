//go:build linux

package linux

import (
	"os"
	"syscall"
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

// TestParentGone: only the reduced tier's parent-death signal, with a new
// parent, ends the tree; the same signal sent while the parent lives, and
// any other signal, is forwarded.
func TestParentGone(t *testing.T) {
	for _, tt := range []struct {
		name       string
		sig        os.Signal
		start, now int
		want       bool
	}{
		{"re-parented to the host's init", reducedDeathSignal, 4321, 1, true},
		{"re-parented to a subreaper", reducedDeathSignal, 4321, 777, true},
		{"sent while the parent lives", reducedDeathSignal, 4321, 4321, false},
		{"another signal, re-parented", syscall.SIGTERM, 4321, 1, false},
		{"pid 1 of a pid namespace", reducedDeathSignal, 0, 0, false},
		{"started as an orphan already", reducedDeathSignal, 1, 1, false},
	} {
		if got := parentGone(tt.sig, tt.start, tt.now); got != tt.want {
			t.Errorf("%s: parentGone(%v, %d, %d) = %v, want %v", tt.name, tt.sig, tt.start, tt.now, got, tt.want)
		}
	}
}

// TestReducedInitSurvivesParent: the reduced tier's init must not die of
// agentbox's death before it has ended the tree: its parent-death signal
// is a catchable one that wakes it if stopped.
func TestReducedInitSurvivesParent(t *testing.T) {
	if s := initAttrFor(kindReduced, false).Pdeathsig; s != reducedDeathSignal || s == syscall.SIGKILL {
		t.Errorf("reduced init's Pdeathsig = %v, want %v", s, reducedDeathSignal)
	}
	if s := initAttrFor(kindNetns, false).Pdeathsig; s != syscall.SIGKILL {
		t.Errorf("namespaced init's Pdeathsig = %v, want SIGKILL (its pid namespace ends the tree)", s)
	}
}
