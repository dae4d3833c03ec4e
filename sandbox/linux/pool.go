//go:build linux

package linux

import (
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// warmInit is an init started ahead of need, waiting for its spec.
type warmInit struct {
	cmd *exec.Cmd
	ctl *os.File
}

// pool keeps at most one warm init per kind (with or without a network
// namespace), started after the first use of that kind.
type pool struct {
	mu      sync.Mutex
	ready   map[bool]*warmInit
	pending map[bool]chan struct{} // closed when the warm-up in flight ends
	closed  bool
}

// take returns a warm init of the kind, or starts one now, and (if
// replenish) starts the next one in the background.
func (p *pool) take(r *Runtime, netns, replenish bool) (*warmInit, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: runtime closed", sandbox.ErrSetup)
	}
	w := p.ready[netns]
	delete(p.ready, netns)
	wait := p.pending[netns]
	p.mu.Unlock()
	if w == nil && wait != nil {
		// A warm-up started earlier is further along than a new start.
		<-wait
		p.mu.Lock()
		w = p.ready[netns]
		delete(p.ready, netns)
		p.mu.Unlock()
	}
	if w == nil {
		var err error
		if w, err = startInit(r, netns); err != nil {
			return nil, err
		}
	}
	if replenish {
		p.warm(r, netns)
	}
	return w, nil
}

// warm starts a warm init of the kind in the background if none is ready.
func (p *pool) warm(r *Runtime, netns bool) {
	p.mu.Lock()
	if p.closed || p.ready[netns] != nil || p.pending[netns] != nil {
		p.mu.Unlock()
		return
	}
	if p.pending == nil {
		p.pending, p.ready = make(map[bool]chan struct{}), make(map[bool]*warmInit)
	}
	done := make(chan struct{})
	p.pending[netns] = done
	p.mu.Unlock()
	go func() {
		w, err := startInit(r, netns)
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.pending, netns)
		defer close(done)
		if err != nil {
			return // the next take starts one itself and reports the error
		}
		if p.closed || p.ready[netns] != nil {
			w.discard()
			return
		}
		p.ready[netns] = w
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
func startInit(r *Runtime, netns bool) (*warmInit, error) {
	ctl, child, err := socketpair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{initArg0}, Env: initEnv, Dir: "/",
		ExtraFiles: []*os.File{child}, SysProcAttr: r.initAttr(netns)}
	if err := cmd.Start(); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("%w: cannot create the sandbox's namespaces: %w%s", sandbox.ErrUnavailable, err, usernsHint())
	}
	return &warmInit{cmd: cmd, ctl: ctl}, nil
}

// discard stops an unused warm init.
func (w *warmInit) discard() {
	w.ctl.Close() // the init sees EOF and exits
	_ = w.cmd.Process.Kill()
	go w.cmd.Wait()
}
