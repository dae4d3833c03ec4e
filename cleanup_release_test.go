//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// awaitNoPlaceholders waits up to d for dir to hold nothing of agentbox's.
func awaitNoPlaceholders(dir string, d time.Duration) []string {
	left := rt27Placeholders(dir)
	for end := time.Now().Add(d); len(left) > 0 && time.Now().Before(end); left = rt27Placeholders(dir) {
		time.Sleep(20 * time.Millisecond)
	}
	return left
}

// TestCloseReleasesWrapped: Close kills a wrapped cmd and, once its
// program can no longer run, removes its placeholders, before the caller's
// cmd.Wait and cleanup; those, in any order, still end as they would
// without Close: cmd.Wait reports the kill (137), or 125 for a cmd
// started only after Close, and nothing is left.
func TestCloseReleasesWrapped(t *testing.T) {
	for _, tc := range []struct {
		name     string
		started  bool     // cmd started (and its program ready) before Close
		steps    []string // after Close: "wait" (cmd.Wait), "cleanup", "start"
		wantCode int
	}{
		{"running, wait then cleanup", true, []string{"wait", "cleanup"}, 137},
		{"running, cleanup then wait", true, []string{"cleanup", "wait"}, 137},
		{"not started, start, wait, cleanup", false, []string{"start", "wait", "cleanup"}, 125},
		{"not started, cleanup, start, wait", false, []string{"cleanup", "start", "wait"}, 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := rt27ProtectingManager()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			dir := hostDir(t)
			cmd := exec.Command("/bin/sh", "-c", "echo ready > ready; sleep 300")
			cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			if !slices.Contains(rt27Placeholders(dir), ".git") {
				t.Fatalf("control: no placeholder once wrapped: %v", rt27Placeholders(dir))
			}
			if tc.started {
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if !rt27WaitReady(dir, 10*time.Second) {
					t.Fatal("never ready")
				}
			}
			if err := m.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if left := awaitNoPlaceholders(dir, 2*time.Second); len(left) > 0 {
				t.Errorf("placeholders left after Close: %v", left)
			}
			var waitErr error
			for _, s := range tc.steps {
				switch s {
				case "start":
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
				case "wait":
					waitErr = cmd.Wait()
				case "cleanup":
					cleanup()
				}
			}
			var ee *exec.ExitError
			if !errors.As(waitErr, &ee) || ee.ExitCode() != tc.wantCode {
				t.Errorf("cmd.Wait: %v, want exit %d", waitErr, tc.wantCode)
			}
			if left := rt27Placeholders(dir); len(left) > 0 {
				t.Errorf("placeholders left at the end: %v", left)
			}
		})
	}
}

// TestCleanupReleaseRaces: Close, Cleanup and Process.Wait at once on a
// running Process: none blocks past the bound, every Wait returns the
// same killed result without an error, and nothing is left.
func TestCleanupReleaseRaces(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc) // Cleanup's
	}{
		{"background", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
		{"ctx already ended", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := rt27ProtectingManager()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			dir := hostDir(t)
			p, err := rt27StartHolding(m, dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			results := make([]*agentbox.ExecResult, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			t0 := time.Now()
			wg.Go(func() { results[0], errs[0] = p.Wait() })
			wg.Go(func() {
				if err := m.Cleanup(ctx); err != nil && ctx.Err() == nil {
					t.Errorf("Cleanup: %v", err)
				}
			})
			wg.Go(func() { _ = m.Close() })
			wg.Go(func() { results[1], errs[1] = p.Wait() })
			wg.Wait()
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			for i := range results {
				if results[i] == nil || results[i].ExitCode != 137 || errs[i] != nil || results[i] != results[0] {
					t.Errorf("Wait %d: %+v %v", i, results[i], errs[i])
				}
			}
			if left := rt27Placeholders(dir); len(left) > 0 {
				t.Errorf("placeholders left: %v", left)
			}
		})
	}
}
