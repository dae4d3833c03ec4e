//go:build linux

package linux

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// initProc is a started init, whoever cloned it: this process (an
// exec.Cmd) or the forker.
type initProc interface {
	pid() int
	// signal sends sig; os.ErrProcessDone once the init was reaped.
	signal(sig syscall.Signal) error
	// wait blocks until the init is reaped and returns its wait status.
	wait() (syscall.WaitStatus, error)
}

// cmdProc is an init this process started as an exec.Cmd (Prepare's
// caller starts it; a cold start starts it here).
type cmdProc struct {
	cmd *exec.Cmd
	// moving, if set, is closed once its move into a cgroup is done: it is
	// not reaped before.
	moving <-chan struct{}
}

func (p cmdProc) pid() int {
	if p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// errNotStarted is a signal for an init whose cmd has no process yet.
var errNotStarted = errors.New("sandbox not started")

func (p cmdProc) signal(sig syscall.Signal) error {
	if p.cmd.Process == nil {
		return errNotStarted
	}
	return p.cmd.Process.Signal(sig)
}

func (p cmdProc) wait() (syscall.WaitStatus, error) {
	if p.moving != nil {
		<-p.moving
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // a status, not a failure to wait
	}
	return waitStatusOf(p.cmd.ProcessState), err
}

// waitStatusOf is state's raw wait status; a status that says "killed by
// SIGKILL" when there is none.
func waitStatusOf(state *os.ProcessState) syscall.WaitStatus {
	if state != nil {
		if ws, ok := state.Sys().(syscall.WaitStatus); ok {
			return ws
		}
	}
	return syscall.WaitStatus(syscall.SIGKILL)
}
