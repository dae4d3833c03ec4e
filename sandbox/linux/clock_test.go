//go:build linux

package linux

import (
	"context"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

func TestMonotonicTime(t *testing.T) {
	now := time.Now()
	mono := monotonicNow()
	if mono == 0 {
		t.Fatal("CLOCK_MONOTONIC unreadable")
	}
	const ago = 2 * time.Second
	long := now.Add(-time.Hour)
	tests := []struct {
		name      string
		mono      uint64
		notBefore time.Time
		want      time.Time
	}{
		{"two seconds ago", mono - uint64(ago), long, now.Add(-ago)},
		{"unknown is zero", 0, long, time.Time{}},
		{"in the future is now", mono + uint64(time.Hour), long, now},
		{"clamped to notBefore", mono - uint64(ago), now.Add(-time.Second), now.Add(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := monotonicTime(tt.mono, tt.notBefore)
			if tt.want.IsZero() {
				if !got.IsZero() {
					t.Errorf("got %v, want the zero time", got)
				}
				return
			}
			if d := got.Sub(tt.want); d < -100*time.Millisecond || d > 100*time.Millisecond { // the test's and the call's two clock reads may be preempted apart
				t.Errorf("got %v, want %v (off by %v)", got, tt.want, d)
			}
		})
	}
}

// TestStartedIsProgramStart: a sandbox's Started is when its program was
// started: after the call began, before Start returned.
func TestStartedIsProgramStart(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	before := time.Now()
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkBlocked},
		&sandbox.Program{Path: "/bin/true", Args: []string{"/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	defer proc.Close()
	started := proc.Started()
	if started.Before(before) || started.After(returned) {
		t.Errorf("Started %v outside the call [%v, %v]", started, before, returned)
	}
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
}
