package main

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// disposition is the kernel's handler of sig: 0 SIG_DFL, 1 SIG_IGN.
func disposition(t *testing.T, sig unix.Signal) uintptr {
	t.Helper()
	var old [8]uint64
	if _, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); errno != 0 {
		t.Fatalf("rt_sigaction(%v): %v", sig, errno)
	}
	return uintptr(old[0])
}

// TestTerminalStopsDisposition: SIGTTIN and SIGTTOU are ignored once
// ignoreTerminalStops ran, still ignored inside withTerminalStops
// (agentbox's own prompt stops itself: stopForTerminal) and after it, and
// default after defaultTerminalStops.
func TestTerminalStopsDisposition(t *testing.T) {
	const dfl, ign = 0, 1
	// Ignored dispositions pass through exec: leave none to later tests.
	t.Cleanup(defaultTerminalStops)
	var inside [2]uintptr
	sigs := []unix.Signal{unix.SIGTTIN, unix.SIGTTOU}
	for _, step := range []struct {
		name string
		do   func()
		want uintptr
	}{
		{"ignored", ignoreTerminalStops, ign},
		{"after the prompt", func() {
			withTerminalStops(func() {
				for i, s := range sigs {
					inside[i] = disposition(t, s)
				}
			})
		}, ign},
		{"given back", defaultTerminalStops, dfl},
	} {
		step.do()
		for _, s := range sigs {
			if got := disposition(t, s); got != step.want {
				t.Errorf("%s: %v handler %d, want %d", step.name, s, got, step.want)
			}
		}
	}
	for i, s := range sigs {
		if inside[i] != ign {
			t.Errorf("during the prompt: %v handler %d, want SIG_IGN", s, inside[i])
		}
	}
}
