//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The forker is a small agentbox process that clones a Runtime's warm
// inits. An init is cloned with a new user namespace, which rules out
// vfork: cloning it here copies this process's whole address space, and
// then every page this process writes faults once more. On a VM with
// shadow paging that slows the caller's next few milliseconds of work
// five- to tenfold, right when it prepares its next command. The forker is
// started once, with vfork (no namespace flags), does nothing but clone
// inits, and passes back each init's pid and a pidfd; it reaps them and
// reports their wait statuses.
//
// Its lifetime is tied to this process: it gets SIGKILL when the thread
// that started it (the spawner thread, never released) ends, and the inits
// it clones get SIGKILL when it ends. It stops when the Runtime closes,
// once the inits it cloned have exited.

// forkerArg0 marks a re-executed agentbox binary as a forker.
const forkerArg0 = "agentbox-sandbox-forker"

// forkerEnv is the forker's environment: a small runtime that does collect
// its garbage, since it lives as long as its Runtime.
var forkerEnv = []string{"GOMAXPROCS=1"}

// Forker messages: a request (msgFork, with the init's end of its control
// socket and, if Cgroup, the cgroup v2 directory to clone it into), its answer (msgForked: the pid and a pidfd, or an error), and
// msgReaped with the wait status of an init once the forker reaped it.
const (
	msgFork   = "fork"
	msgForked = "forked"
	msgReaped = "reaped"
)

// forkMsg is one message between a Runtime and its forker.
type forkMsg struct {
	Type   string
	Kind   initKind
	AsRoot bool
	Cgroup bool
	Pid    int
	Status int // msgReaped: the raw wait status
	Err    string
}

func (m *forkMsg) encode() []byte {
	var e encoder
	e.str(m.Type)
	e.int(int(m.Kind))
	e.bool(m.AsRoot)
	e.bool(m.Cgroup)
	e.int(m.Pid)
	e.int(m.Status)
	e.str(m.Err)
	return e.b
}

func decodeForkMsg(b []byte) (forkMsg, error) {
	d := &decoder{b: b}
	m := forkMsg{Type: d.str(), Kind: initKind(d.int()), AsRoot: d.bool(), Cgroup: d.bool(), Pid: d.int(), Status: d.int(), Err: d.str()}
	return m, d.finish()
}

// errForkerGone reports a forker that exited or broke its protocol; the
// Runtime then clones inits itself.
var errForkerGone = errors.New("the init forker is gone")

// forker is a Runtime's handle on its forker process.
type forker struct {
	cmd  *exec.Cmd
	sock *os.File

	// reqMu serialises requests (one in flight) and the socket's closing.
	reqMu   sync.Mutex
	replies chan forkReply

	mu    sync.Mutex
	procs map[int]*forkedProc // cloned, not yet reaped
	gone  bool
}

type forkReply struct {
	proc *forkedProc
	err  error
}

// startForker starts a forker from the spawner thread.
func startForker() (*forker, error) {
	sock, child, err := socketpair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{forkerArg0}, Env: forkerEnv, Dir: "/",
		ExtraFiles: []*os.File{child}, SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if err := startOnSpawner(cmd); err != nil {
		sock.Close()
		return nil, fmt.Errorf("start the init forker: %w", err)
	}
	f := &forker{cmd: cmd, sock: sock, replies: make(chan forkReply, 1), procs: make(map[int]*forkedProc)}
	go f.read()
	return f, nil
}

// fork has the forker clone an init of kind whose control socket is ctl,
// into the cgroup cg when it is not nil.
func (f *forker) fork(kind initKind, asRoot bool, ctl, cg *os.File) (*forkedProc, error) {
	f.reqMu.Lock()
	defer f.reqMu.Unlock()
	f.mu.Lock()
	gone := f.gone
	f.mu.Unlock()
	if gone {
		return nil, errForkerGone
	}
	m := forkMsg{Type: msgFork, Kind: kind, AsRoot: asRoot, Cgroup: cg != nil}
	fds := []int{int(ctl.Fd())}
	if cg != nil {
		fds = append(fds, int(cg.Fd()))
	}
	if err := sendBytes(int(f.sock.Fd()), m.encode(), fds...); err != nil {
		return nil, fmt.Errorf("%w: %w", errForkerGone, err)
	}
	r, ok := <-f.replies
	if !ok {
		return nil, errForkerGone
	}
	return r.proc, r.err
}

// read dispatches the forker's messages until it exits.
func (f *forker) read() {
	fd := int(f.sock.Fd())
	for {
		b, fds, err := recvBytes(fd)
		if err != nil {
			break
		}
		m, err := decodeForkMsg(b)
		if err != nil {
			closeAll(fds)
			break
		}
		switch m.Type {
		case msgForked:
			f.forked(m, fds)
		case msgReaped:
			closeAll(fds)
			f.reaped(m.Pid, syscall.WaitStatus(m.Status), nil)
		default:
			closeAll(fds)
		}
	}
	_ = f.cmd.Wait()
	// The forker's end took every init it cloned with it (their
	// parent-death signal).
	f.mu.Lock()
	f.gone = true
	procs := f.procs
	f.procs = nil
	f.mu.Unlock()
	for _, p := range procs {
		p.exit(syscall.WaitStatus(syscall.SIGKILL), errForkerGone)
	}
	close(f.replies) // wakes a request waiting for its answer
	f.reqMu.Lock()   // and closes the socket once it is done with it
	f.sock.Close()
	f.reqMu.Unlock()
}

func (f *forker) forked(m forkMsg, fds []int) {
	if m.Err != "" || m.Pid <= 0 || len(fds) != 1 {
		closeAll(fds)
		err := errors.New(m.Err)
		if m.Err == "" {
			err = fmt.Errorf("%w: a reply without a pidfd", errForkerGone)
		}
		f.replies <- forkReply{err: err}
		return
	}
	p := &forkedProc{id: m.Pid, pidfd: fds[0], exited: make(chan struct{})}
	f.mu.Lock()
	f.procs[p.id] = p
	f.mu.Unlock()
	f.replies <- forkReply{proc: p}
}

func (f *forker) reaped(pid int, ws syscall.WaitStatus, err error) {
	f.mu.Lock()
	p := f.procs[pid]
	delete(f.procs, pid)
	f.mu.Unlock()
	if p != nil {
		p.exit(ws, err)
	}
}

// close tells the forker to stop once the inits it cloned have exited; it
// keeps reporting their statuses until then.
func (f *forker) close() {
	f.reqMu.Lock()
	defer f.reqMu.Unlock()
	f.mu.Lock()
	gone := f.gone
	f.mu.Unlock()
	if !gone {
		_ = unix.Shutdown(int(f.sock.Fd()), unix.SHUT_WR)
	}
}

// forkedProc is an init the forker cloned. It is signalled through its
// pidfd, so a signal never reaches a process that reused its pid.
type forkedProc struct {
	id int

	mu     sync.Mutex
	pidfd  int // -1 once reaped
	exited chan struct{}
	status syscall.WaitStatus
	err    error
}

func (p *forkedProc) pid() int { return p.id }

func (p *forkedProc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pidfd < 0 {
		return os.ErrProcessDone
	}
	err := unix.PidfdSendSignal(p.pidfd, sig, nil, 0)
	if err == unix.ESRCH {
		return os.ErrProcessDone
	}
	if err != nil {
		return os.NewSyscallError("pidfd_send_signal", err)
	}
	return nil
}

func (p *forkedProc) wait() (syscall.WaitStatus, error) {
	<-p.exited
	return p.status, p.err
}

func (p *forkedProc) exit(ws syscall.WaitStatus, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pidfd < 0 {
		return
	}
	unix.Close(p.pidfd)
	p.pidfd = -1
	p.status, p.err = ws, err
	close(p.exited)
}
