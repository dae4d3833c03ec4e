package agentbox

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"
)

// Cleanup kills every sandbox this Manager still runs and releases what
// they hold, as Process.Wait and Wrap's cleanup would: it waits for each
// killed sandbox to end (its whole tree is SIGKILLed, so that is quick;
// copies of its output still blocked on the caller's writers are given
// up copyDrain later) until ctx ends, and returns ctx.Err() if it ended
// first (a Process not released by then is when it ends; a wrapped cmd,
// by its cleanup).
//
// A Process it killed is released as its Wait does (placeholders, cgroup,
// proxy, temporary directory): the Process's Wait, called before, during
// or after, returns the same result, the program killed (exit 137). A
// wrapped cmd it killed has what it holds in the host's file tree
// (placeholders, temporary directory) and its proxy released once it
// can no longer run its program; its cleanup, still the caller's to call,
// releases the rest (see Wrap). A Start, ExecArgs or Wrap still building
// its sandbox when Cleanup runs ends it as soon as it is built: its
// Process reports the program killed, and a wrapped cmd runs nothing
// (it exits 125, as one started after its ctx ended does). The Manager
// stays usable.
func (m *Manager) Cleanup(ctx context.Context) error {
	m.mu.Lock()
	m.cleanups++ // a call still building its sandbox ends it (see track)
	hs := slices.Collect(maps.Keys(m.running))
	m.mu.Unlock()
	var errs []error
	for _, h := range hs {
		if err := h.Kill(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := reclaimAll(ctx, hs); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// reclaimAll reclaims the killed sandboxes hs at once, until ctx ends.
func reclaimAll(ctx context.Context, hs []tracked) error {
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Go(func() { h.reclaim(ctx) })
	}
	wg.Wait()
	return ctx.Err()
}

// closeReclaim bounds how long Close waits for the sandboxes it killed to
// end and be released (see Cleanup): a SIGKILLed tree ends at once; the
// reduced tier's init ends its tree within a few seconds.
const closeReclaim = 8 * time.Second

// Close kills and releases what still runs as Cleanup does, waiting
// closeReclaim at most, and makes further calls fail with
// ErrManagerClosed. A program that returns after Close leaves nothing of
// its Processes in the user's writable roots, Wait called or not.
//
// A Start or Wrap already starting its sandbox as Close begins is waited
// for (closeReclaim at most) and its sandbox ended with the others: the
// Process it returns reports the program killed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.awaitCalls(closeReclaim)
	m.mu.Lock()
	m.swept = true // Cleanup sees every sandbox tracked so far
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeReclaim)
	defer cancel()
	err := m.Cleanup(ctx)
	return errors.Join(err, m.rt.Close())
}

// awaitCalls waits, d at most, for the calls enter admitted to return. A
// call still starting after d (a runtime stuck) ends its own sandbox: track
// refuses it.
func (m *Manager) awaitCalls(d time.Duration) {
	if !waitAtMost(&m.calls, d) {
		m.log().Warn("Close stopped waiting for calls still starting a sandbox; they end it themselves", "waited", d)
	}
}

// track records a running sandbox so that Cleanup and Close can kill and
// release it. It reports trackClosed, and records nothing, once Close has
// collected the sandboxes it ends (a call it stopped waiting for): the
// caller must end and release the sandbox itself. It reports trackCleaned
// where a Cleanup ran since the call c began: the sandbox, built while
// Cleanup ended the others (red-team round 55), is recorded, and the
// caller must kill it at once.
func (m *Manager) track(k tracked, c call) trackResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.swept {
		return trackClosed
	}
	m.running[k] = struct{}{}
	if m.cleanups != c.cleanups {
		return trackCleaned
	}
	return trackOK
}

// trackResult is what track tells its caller to do.
type trackResult int

const (
	trackOK      trackResult = iota
	trackClosed              // not recorded: end and release it
	trackCleaned             // recorded: kill it
)

// untrack forgets a finished sandbox; its owner releases it.
func (m *Manager) untrack(k tracked) {
	m.mu.Lock()
	delete(m.running, k)
	m.mu.Unlock()
}

// tracked is what Cleanup needs of a running sandbox: a Process, or a
// wrapped cmd's sandbox.
type tracked interface {
	Kill() error
	// reclaim waits, until ctx ends, for the killed sandbox to end, and
	// releases what it holds (see Cleanup).
	reclaim(ctx context.Context)
}
