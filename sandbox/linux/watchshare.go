//go:build linux

package linux

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The init's mount watch holds an inotify instance (dirWatch). Whoever
// drops the last reference to an inotify instance pays for its teardown,
// and that waits for an SRCU grace period: 13–17 ms measured on the
// reference VM, in the exit of the process that held it last. Were that
// the init, a killed sandbox would outlive its kill by as much: the init
// is gone only once its files are closed (the program's processes die at
// once, with the init's pid namespace, but the init itself lingers).
//
// So the init hands a duplicate of the instance to its parent with
// msgReady (ctlMsg.Watch), and the parent lets go of it at the right
// moment (handle.releaseWatch):
//
//   - A killed init holds only a copy: it dies at once. The parent, which
//     then holds the last reference, closes it in the background.
//   - An init that reports the program's exit (msgExit) then half-closes
//     its control socket and waits for the parent to close the socket
//     (awaitRelease). The parent closes its copy first, which is cheap,
//     the init still holding one, so the teardown stays with the init's
//     exit, in parallel with whatever the parent does next: a one-shot
//     caller such as the CLI never waits for it.

// inotifyFD returns the watch's inotify instance, -1 without one (no
// watched mounts, or no inotify: see fallbackPeriod).
func (w *mountWatch) inotifyFD() int {
	if !w.watching {
		return -1 // dirs was never opened: its fd is no descriptor of it
	}
	return w.dirs.fd
}

// ctlClosed is closed when awaitKill has seen the control socket close.
var ctlClosed = make(chan struct{})

// exiting is set once the init has reported the program's exit and waits
// for the parent to close the control socket: that close is expected, not
// agentbox's death.
var exiting atomic.Bool

// releaseWait bounds the init's wait for the parent (awaitRelease): a
// parent that has not closed the socket by then is stuck or gone, and the
// init exits anyway (the teardown is then the parent's).
const releaseWait = 2 * time.Second

// awaitRelease, called once msgExit is sent, tells the parent that
// nothing more comes (a half-close, which ends its serve loop) and waits
// until it has let go of the watch's inotify instance and closed the
// control socket.
func awaitRelease() {
	exiting.Store(true)
	if err := unix.Shutdown(ctlFD, unix.SHUT_WR); err != nil {
		return
	}
	t := time.NewTimer(releaseWait)
	defer t.Stop()
	select {
	case <-ctlClosed:
	case <-t.C:
	}
}

// releaseWatch lets go of the init's inotify instance, once the control
// socket has closed or half-closed (serve's end): at once if the init
// reported the program's exit, for it still holds its own copy (it waits
// in awaitRelease until the socket closes, after this); in the background
// if it died without a report, for then this copy is the last.
func (h *handle) releaseWatch() {
	w := h.watch
	if w == nil {
		return
	}
	h.watch = nil
	h.mu.Lock()
	reported := h.exit != nil
	h.mu.Unlock()
	if reported {
		w.Close()
		return
	}
	if h.keepLastWatch != nil {
		h.keepLastWatch(w)
		return
	}
	go w.Close()
}
