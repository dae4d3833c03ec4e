package agentbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// Process is a sandboxed program started by Manager.Start.
type Process struct {
	m       *Manager
	h       sandbox.Handle
	cmd     *exec.Cmd
	started time.Time
	timeout time.Duration
	ctx     context.Context

	stdout, stderr *capBuffer // set by Exec and ExecArgs, which capture

	once   sync.Once
	result *ExecResult
	err    error
}

// Start starts cmd's program in a sandbox and returns once it runs inside
// (or the sandbox could not be built). Its standard streams are cmd's own,
// so output is streamed, not captured. ctx, and WithTimeout, kill the whole
// process tree when they end. Wait must be called.
func (m *Manager) Start(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Process, error) {
	if cmd == nil || cmd.Path == "" {
		return nil, ErrNilCommand
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = sandboxEnv(hostEnv(), o.env)
	} else {
		cmd.Env = append(cmd.Env, o.env...)
	}
	return m.startProcess(ctx, m.Config(), o, cmd)
}

func (m *Manager) startProcess(ctx context.Context, cfg Config, o *callOptions, cmd *exec.Cmd) (*Process, error) {
	spec, err := m.spec(cfg, o)
	if err != nil {
		return nil, err
	}
	if cmd.Dir == "" {
		if cmd.Dir, err = workingDir(o); err != nil {
			return nil, err
		}
	}
	h, err := m.start(ctx, spec, cmd)
	if err != nil {
		return nil, err
	}
	return &Process{m: m, h: h, cmd: cmd, started: time.Now(), timeout: o.timeout, ctx: ctx}, nil
}

// Pid is the host pid of the sandbox's init (pid 1 inside).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Layers lists the isolation layers applied.
func (p *Process) Layers() []string { return p.h.Layers() }

// Signal forwards sig to the program's process group inside the sandbox.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill ends the sandbox's whole process tree at once.
func (p *Process) Kill() error { return p.h.Kill() }

// Wait waits for the program to end and releases the sandbox. A timeout
// returns the result (exit 137) with ErrTimeout; an ended ctx returns it
// with ctx.Err().
func (p *Process) Wait() (*ExecResult, error) {
	p.once.Do(func() { p.result, p.err = p.wait() })
	return p.result, p.err
}

func (p *Process) wait() (*ExecResult, error) {
	defer p.m.finish(p.h)
	waitErr := make(chan error, 1)
	go func() { waitErr <- p.cmd.Wait() }()
	var expired <-chan time.Time
	if p.timeout > 0 {
		t := time.NewTimer(p.timeout - time.Since(p.started))
		defer t.Stop()
		expired = t.C
	}
	var timedOut bool
	var ctxErr error
	select {
	case <-waitErr:
	case <-expired:
		timedOut = true
		_ = p.h.Kill()
		<-waitErr
	case <-p.ctx.Done():
		ctxErr = p.ctx.Err()
		_ = p.h.Kill()
		<-waitErr
	}
	st := p.h.ExitStatus(p.cmd.ProcessState)
	res := &ExecResult{
		ExitCode:  st.Code,
		Duration:  time.Since(p.started),
		TimedOut:  timedOut,
		Sandboxed: true,
		Layers:    p.h.Layers(),
	}
	if p.stdout != nil {
		res.Stdout, res.Stderr = p.stdout.String(), p.stderr.String()
		res.Truncated = p.stdout.truncated || p.stderr.truncated
	}
	if timedOut || ctxErr != nil {
		res.ExitCode = 128 + int(syscall.SIGKILL)
	}
	switch {
	case timedOut:
		return res, fmt.Errorf("%w after %v", ErrTimeout, p.timeout)
	case ctxErr != nil:
		return res, ctxErr
	}
	return res, nil
}
