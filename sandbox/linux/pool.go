//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// warmInit is an init started ahead of need, waiting for its spec.
type warmInit struct {
	proc initProc
	ctl  *os.File
	cg   *sandboxCgroup // the cgroup it already sits in, if any
}

// initKind is how an init is cloned.
type initKind int

const (
	kindNetns   initKind = iota // every namespace, a network namespace too
	kindHostnet                 // every namespace but the network's
	kindReduced                 // no namespaces (the reduced tier)
)

// pool keeps at most one warm init per kind, started after the first use of
// that kind.
type pool struct {
	mu      sync.Mutex
	ready   map[initKind]*warmInit
	pending map[initKind]chan struct{} // closed when the warm-up in flight ends
	closed  bool
}

// take returns a warm init of the kind, or starts one now. The caller
// starts the next one (warm) once its sandbox is released: an init starting
// beside a running sandbox competes with it for the CPU, and its fork
// stalls the caller's other threads (a new user namespace rules out vfork).
func (p *pool) take(r *Runtime, kind initKind) (*warmInit, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", sandbox.ErrSetup, sandbox.ErrClosed)
	}
	w := p.ready[kind]
	delete(p.ready, kind)
	wait := p.pending[kind]
	p.mu.Unlock()
	if w == nil && wait != nil {
		// A warm-up started earlier is further along than a new start.
		<-wait
		p.mu.Lock()
		w = p.ready[kind]
		delete(p.ready, kind)
		p.mu.Unlock()
	}
	if w != nil && !w.alive() {
		w.discard() // its forker died, and took it along
		w = nil
	}
	if w == nil {
		var err error
		if w, err = startInit(r, kind); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// warm starts a warm init of the kind in the background if none is ready.
func (p *pool) warm(r *Runtime, kind initKind) {
	p.mu.Lock()
	if p.closed || p.ready[kind] != nil || p.pending[kind] != nil {
		p.mu.Unlock()
		return
	}
	if p.pending == nil {
		p.pending, p.ready = make(map[initKind]chan struct{}), make(map[initKind]*warmInit)
	}
	done := make(chan struct{})
	p.pending[kind] = done
	p.mu.Unlock()
	go func() {
		w, err := r.forkInit(kind)
		if err != nil {
			w, err = startInit(r, kind)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.pending, kind)
		defer close(done)
		if err != nil {
			return // the next take starts one itself and reports the error
		}
		if p.closed || p.ready[kind] != nil {
			w.discard()
			return
		}
		p.ready[kind] = w
	}()
}

func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k, w := range p.ready {
		w.discard()
		delete(p.ready, k)
	}
}

// startInit starts an init that waits for its spec on the control socket.
func startInit(r *Runtime, kind initKind) (*warmInit, error) {
	ctl, child, err := socketpair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: initArgs(kind), Env: initEnv, Dir: "/",
		ExtraFiles: []*os.File{child}, SysProcAttr: r.initAttr(kind)}
	if err := startOnSpawner(cmd); err != nil {
		ctl.Close()
		if kind == kindReduced {
			return nil, fmt.Errorf("%w: start the sandbox init: %w", sandbox.ErrSetup, err)
		}
		return nil, &noNamespacesError{err: err}
	}
	return newWarmInit(kind, cmdProc{cmd}, ctl), nil
}

// forkInit has the Runtime's forker clone an init. Any failure, whatever
// its cause, leaves the caller to start the init itself, which reports
// the real error.
func (r *Runtime) forkInit(kind initKind) (*warmInit, error) {
	f := r.forker()
	if f == nil {
		return nil, errForkerGone
	}
	ctl, child, err := socketpair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	proc, err := f.fork(kind, r.asRoot, child)
	if err != nil {
		ctl.Close()
		if errors.Is(err, errForkerGone) {
			r.dropForker(f)
		}
		return nil, err
	}
	return newWarmInit(kind, proc, ctl), nil
}

func newWarmInit(kind initKind, proc initProc, ctl *os.File) *warmInit {
	w := &warmInit{proc: proc, ctl: ctl}
	// Creating a cgroup is slow (a memory cgroup most of all): do it now,
	// ahead of the command, and only set its limits when the command comes.
	if kind != kindReduced {
		if cg, err := newSandboxCgroup(); err == nil {
			if cg.add(proc.pid()) == nil {
				w.cg = cg
			} else {
				cg.closeAsync()
			}
		}
	}
	return w
}

// alive reports whether the init may still take a spec: false once it is
// known to have exited.
func (w *warmInit) alive() bool {
	if p, ok := w.proc.(*forkedProc); ok {
		select {
		case <-p.exited:
			return false
		default:
		}
	}
	return true
}

// discard stops an unused warm init.
func (w *warmInit) discard() {
	w.ctl.Close() // the init sees EOF and exits
	_ = w.proc.signal(syscall.SIGKILL)
	go func() {
		_, _ = w.proc.wait()
		w.cg.close()
	}()
}

// noNamespacesError reports that the kernel refused to create the
// sandbox's namespaces (user namespaces off, an LSM forbidding them, a
// container without the rights).
type noNamespacesError struct{ err error }

func (e *noNamespacesError) Error() string {
	return "cannot create the sandbox's user, mount, pid and network namespaces: " + e.err.Error() + usernsHint()
}

func (e *noNamespacesError) Unwrap() error { return sandbox.ErrUnavailable }
