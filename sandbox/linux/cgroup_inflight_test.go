//go:build linux

package linux

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestInFlight: Wait returns only once every piece of work has finished,
// including work started while it waits.
func TestInFlight(t *testing.T) {
	var f inFlight
	f.Wait() // nothing in flight: returns at once
	var finished atomic.Int32
	release := make(chan struct{})
	f.Go(func() {
		<-release
		// More work, started while Close waits.
		f.Go(func() { time.Sleep(10 * time.Millisecond); finished.Add(1) })
		finished.Add(1)
	})
	waited := make(chan struct{})
	go func() { f.Wait(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("Wait returned with work in flight")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-waited
	if n := finished.Load(); n != 2 {
		t.Errorf("Wait returned after %d of 2 pieces of work", n)
	}
	f.Wait()
}
