//go:build linux

package linux

import (
	"context"
)

// releaseHolds removes, once, what the sandbox holds in the host's file
// tree: the placeholders in its writable roots and its temporary
// directory.
func (h *handle) releaseHolds() {
	h.holdsOnce.Do(func() {
		h.plan.removePlaceholders()
		if h.plan.tmpDir != "" {
			_ = removeOwnedTree(h.plan.tmpDir)
		}
	})
}

// ReleaseEnded releases, for Prepare's handle ended by Kill, what the
// sandbox holds in the host's file tree (releaseHolds) once no program
// can run in it any more: its spec was taken back before an init read it
// (an init the caller starts later exits 125 without building anything),
// the init failed before the program, or it reported the program's exit
// (after it ended the whole tree). It waits until ctx ends at most and
// reports whether it released. It leaves alone what the caller's cmd
// holds (the init's end of the control socket, the cgroup it is cloned
// into): the caller may start cmd at any moment; Close releases those.
func (h *handle) ReleaseEnded(ctx context.Context) bool {
	h.mu.Lock()
	withdrawn := h.withdrawn
	h.mu.Unlock()
	if !withdrawn {
		if !h.awaitEnd(ctx) {
			return false
		}
	}
	h.releaseHolds()
	return true
}

// awaitEnd waits until the init reported the program's exit or failed
// before starting it, or until ctx ends; it reports which.
func (h *handle) awaitEnd(ctx context.Context) bool {
	select {
	case <-h.exited:
		return true
	case <-h.ready:
		if h.readyErr != nil {
			return true
		}
	case <-ctx.Done():
		return false
	}
	select {
	case <-h.exited:
		return true
	case <-ctx.Done():
		return false
	}
}
