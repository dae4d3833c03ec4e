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
	cg   *sandboxCgroup // the cgroup it sits in (or is being moved into), if any
	// cgMoved reports the move into cg while it is in flight (nil: none).
	cgMoved chan error
	// joinTasks says the init is not in cg (cgroup v1): the thread that
	// forks its program joins it (see tasksFiles).
	joinTasks bool
	// mounts marks the host's mount table as it was when a warm init was
	// cloned (nil for an init used at once).
	mounts *mountStamp
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
	if w != nil && (!w.alive() || w.mounts.changed()) {
		// Its forker died, and took it along; or the host's mounts
		// changed since it copied them (mountStamp).
		w.discard()
		w = nil
	}
	if w != nil {
		w.mounts.close()
		w.mounts = nil
	}
	if w == nil {
		var err error
		if w, err = startInit(r, kind); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// warm starts a warm init of the kind in the background if none is ready:
// cloned by the Runtime's forker, or, when direct is set or there is no
// forker yet, by this process.
func (p *pool) warm(r *Runtime, kind initKind, direct bool) {
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
		// Before the clone: a change while it copies the table counts.
		mounts := newMountStamp()
		w, err := (*warmInit)(nil), errForkerGone
		if !direct {
			w, err = r.forkInit(kind)
		}
		if err != nil && !p.isClosed() {
			// Not once closed: a full fork of this process, for an init
			// discarded at once.
			w, err = startInit(r, kind)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.pending, kind)
		defer close(done)
		if err != nil {
			mounts.close()
			return // the next take starts one itself and reports the error
		}
		w.mounts = mounts
		if p.closed || p.ready[kind] != nil {
			w.discard()
			return
		}
		p.ready[kind] = w
	}()
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
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
	cg := newInitCgroup(kind)
	start := func(into *os.File) (*exec.Cmd, error) {
		attr := r.initAttr(kind)
		if into != nil {
			attr.UseCgroupFD, attr.CgroupFD = true, int(into.Fd())
		}
		cmd := &exec.Cmd{Path: "/proc/self/exe", Args: initArgs(kind), Env: initEnv, Dir: "/",
			ExtraFiles: []*os.File{child}, SysProcAttr: attr}
		return cmd, startOnSpawner(cmd)
	}
	cmd, err := start(cg.dir)
	if err != nil && cg.dir != nil {
		// A kernel or cgroup that refuses CLONE_INTO_CGROUP: start the
		// init outside, and move it in.
		cg.dir.Close()
		cg.dir = nil
		cmd, err = start(nil)
	}
	if err != nil {
		ctl.Close()
		cg.discard()
		if kind == kindReduced {
			return nil, fmt.Errorf("%w: start the sandbox init: %w", sandbox.ErrSetup, err)
		}
		return nil, &noNamespacesError{err: err}
	}
	return newWarmInit(cmdProc{cmd: cmd}, ctl, cg), nil
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
	cg := newInitCgroup(kind)
	procs, err := cg.procsFiles()
	if err != nil {
		// As for a move that failed: the init goes without this cgroup.
		cg.discard()
		cg = initCgroup{}
	}
	proc, err := f.fork(kind, r.asRoot, child, cg.dir, procs...)
	for _, p := range procs {
		p.Close()
	}
	if err != nil {
		ctl.Close()
		cg.discard()
		if errors.Is(err, errForkerGone) {
			r.dropForker(f)
		}
		return nil, err
	}
	if procs != nil {
		if proc.moveErr != nil {
			// The move may have half happened (one hierarchy of two), and
			// closing a cgroup kills what is in it: discard the init with
			// it, and let the caller start one itself.
			_ = proc.signal(syscall.SIGKILL)
			ctl.Close()
			cg.discard()
			return nil, fmt.Errorf("%w: %w", sandbox.ErrSetup, proc.moveErr)
		}
		cg.placed = true
	}
	return newWarmInit(proc, ctl, cg), nil
}

// procsFiles opens, for a cgroup v2 the init cannot be cloned into, its
// cgroup.procs file for the forker to move the init in: the forker reaps
// it, so only the forker can write its pid safely, before that pid could
// be reused. On cgroup v1 the init stays outside (see tasksFiles).
func (c initCgroup) procsFiles() ([]*os.File, error) {
	if c.cg == nil || c.dir != nil || c.cg.version == 1 && !testMoveOnV1 {
		return nil, nil
	}
	return c.cg.openForWriting("cgroup.procs")
}

// testMoveOnV1 makes the forker move inits by cgroup.procs on cgroup v1
// too, for tests of that path on a machine without v2 controllers.
var testMoveOnV1 bool

// initCgroup is the cgroup a new init starts in, made before it starts:
// creating a cgroup is slow (a memory cgroup most of all), and so is moving
// a process into one (the kernel waits for an RCU grace period, about 12 ms
// here), which cloning it there (CLONE_INTO_CGROUP, cgroup v2) avoids, and
// on cgroup v1 the program's thread joining it (tasksFiles). The
// limits are set when the command comes.
type initCgroup struct {
	cg  *sandboxCgroup
	dir *os.File // the cgroup v2 directory to clone into; nil: move in after the start
	// placed says the init was moved in as it started (by the forker).
	placed bool
}

func newInitCgroup(kind initKind) initCgroup {
	if kind == kindReduced {
		return initCgroup{}
	}
	cg, err := newSandboxCgroup()
	if err != nil {
		return initCgroup{}
	}
	c := initCgroup{cg: cg}
	if cg.version == 2 {
		if d, err := os.Open(cg.dirs[0]); err == nil {
			c.dir = d
		}
	}
	return c
}

// discard removes a cgroup no init was started in.
func (c initCgroup) discard() {
	if c.dir != nil {
		c.dir.Close()
	}
	c.cg.closeAsync()
}

func newWarmInit(proc initProc, ctl *os.File, c initCgroup) *warmInit {
	w := &warmInit{proc: proc, ctl: ctl, cg: c.cg}
	if c.dir != nil {
		c.dir.Close() // the init was cloned into it
	} else if c.cg != nil && !c.placed && c.cg.version == 1 {
		w.joinTasks = true
	} else if c.cg != nil && !c.placed {
		// Moving it in takes an RCU grace period: let the init start, and
		// its command be prepared, meanwhile.
		moved := make(chan error, 1)
		w.cgMoved = moved
		done := make(chan struct{})
		if p, ok := proc.(cmdProc); ok {
			// Not reaped before its pid is written: a pid reaped could be
			// another process's by then, moved into the sandbox's cgroup
			// (and killed with it).
			p.moving = done
			w.proc = p
		}
		pid := proc.pid()
		go func() {
			defer close(done)
			moved <- c.cg.add(pid)
		}()
	}
	return w
}

// settleCgroup takes the result of the move into the cgroup if it is
// known: a move that failed leaves the init without a cgroup. It reports
// whether the move is still in flight.
func (w *warmInit) settleCgroup() (pending bool) {
	if w.cgMoved == nil {
		return false
	}
	var err error
	select {
	case err = <-w.cgMoved:
	default:
		return true
	}
	w.cgMoved = nil
	if err != nil {
		w.cg.closeAsync()
		w.cg = nil
	}
	return false
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
	w.mounts.close()
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
