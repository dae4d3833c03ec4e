//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// handle follows one prepared sandbox over its control socket.
type handle struct {
	spec *sandbox.Spec
	cmd  *exec.Cmd
	plan *plan

	ctl   *os.File   // parent end of the control socket
	files []*os.File // descriptors the init inherits; closed once it started

	ready    chan struct{} // closed once the init reported ready or failed
	readyErr error
	layers   []string

	serving  bool          // serve owns ctl
	done     chan struct{} // closed when the control socket is finished
	mu       sync.Mutex
	exit     *ctlMsg
	listener net.Listener
	closed   bool
}

// serve reads the init's messages until the socket closes.
func (h *handle) serve() {
	defer close(h.done)
	defer h.ctl.Close() // only here: closing it under a blocked read could reuse the number
	readyOnce := sync.OnceFunc(func() { close(h.ready) })
	defer readyOnce()
	fd := int(h.ctl.Fd())
	for {
		m, fds, err := recvMsg(fd)
		if err != nil {
			if h.readyErr == nil && !h.isReady() {
				h.readyErr = fmt.Errorf("%w: the sandbox init exited before the program started", sandbox.ErrSetup)
			}
			return
		}
		switch m.Type {
		case msgReady:
			h.layers = m.Layers
			if len(fds) == 1 {
				h.serveProxy(fds[0])
			} else {
				closeAll(fds)
			}
			h.mu.Lock()
			h.layers = m.Layers
			h.mu.Unlock()
			readyOnce()
		case msgError:
			closeAll(fds)
			h.readyErr = &sandbox.SetupError{Stage: m.Stage, Msg: m.Err, ExitCode: m.Code, Unavailable: m.Unavailable}
			readyOnce()
		case msgExit:
			closeAll(fds)
			h.mu.Lock()
			h.exit = &m
			h.mu.Unlock()
		default:
			closeAll(fds)
		}
	}
}

func (h *handle) isReady() bool {
	select {
	case <-h.ready:
		return true
	default:
		return false
	}
}

// serveProxy hands the listening socket created inside the sandbox's network
// namespace to the proxy.
func (h *handle) serveProxy(fd int) {
	f := os.NewFile(uintptr(fd), "agentbox-proxy")
	l, err := net.FileListener(f)
	f.Close()
	if err != nil || h.spec.Proxy == nil {
		if l != nil {
			l.Close()
		}
		return
	}
	h.mu.Lock()
	h.listener = l
	h.mu.Unlock()
	h.spec.Proxy(l)
}

// Ready implements sandbox.Handle.
func (h *handle) Ready(ctx context.Context) error {
	h.closeChildFiles()
	select {
	case <-h.ready:
		return h.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeChildFiles closes the parent's copies of what the init inherited, so
// that the control socket reports EOF when the init is gone.
func (h *handle) closeChildFiles() {
	h.mu.Lock()
	files := h.files
	h.files = nil
	h.mu.Unlock()
	for _, f := range files {
		f.Close()
	}
}

// Layers implements sandbox.Handle.
func (h *handle) Layers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.layers...)
}

// Kill implements sandbox.Handle: killing the init tears down its pid
// namespace, which the kernel empties at once.
func (h *handle) Kill() error {
	if h.cmd.Process == nil {
		return errors.New("sandbox not started")
	}
	err := h.cmd.Process.Signal(syscall.SIGKILL)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// ExitStatus implements sandbox.Handle.
func (h *handle) ExitStatus(state *os.ProcessState) sandbox.ExitStatus {
	// The init reports the program's status and then exits with it; wait
	// for its last message, which is written before it exits.
	select {
	case <-h.done:
	default:
		if state != nil && state.Exited() {
			<-h.done
		}
	}
	h.mu.Lock()
	exit := h.exit
	h.mu.Unlock()
	if exit != nil {
		return sandbox.ExitStatus{Code: exit.Code, Signal: syscall.Signal(exit.Signal)}
	}
	if state == nil {
		return sandbox.ExitStatus{Code: -1}
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return sandbox.ExitStatus{Code: 128 + int(ws.Signal()), Signal: ws.Signal()}
	}
	return sandbox.ExitStatus{Code: state.ExitCode()}
}

// Close implements sandbox.Handle.
func (h *handle) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	l := h.listener
	h.mu.Unlock()
	h.closeChildFiles()
	if l != nil {
		l.Close()
	}
	if !h.serving && h.ctl != nil {
		h.ctl.Close()
	}
	placeholders.release(h.plan.placeholders)
	return nil
}
