//go:build linux

package linux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

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
// once the inits it cloned have exited. It has a process group of its own
// and drops a terminal's signals, which are the caller's to handle; one
// that stops anyway (SIGSTOP) is killed once a request, or the report of
// an init's end, is overdue, and resumed when the Runtime closes.

// forkerArg0 marks a re-executed agentbox binary as a forker.
const forkerArg0 = "agentbox-sandbox-forker"

// forkerEnv is the forker's environment: a small runtime that does collect
// its garbage, since it lives as long as its Runtime.
var forkerEnv = append([]string{"GOMAXPROCS=1"}, raceEnv...)

// Forker messages: a request (msgFork, with the init's end of its control
// socket; if Cgroup, the cgroup v2 directory to clone it into; then Procs
// cgroup.procs files, opened for writing, to move it into: a v2 cgroup it
// could not be cloned into (procsFiles)), its
// answer (msgForked: the pid and a pidfd, or an error; MoveErr if the move
// failed), and msgReaped with the wait status of an init once the forker
// reaped it.
const (
	msgFork   = "fork"
	msgForked = "forked"
	msgReaped = "reaped"
)

// forkMsg is one message between a Runtime and its forker.
type forkMsg struct {
	Type string
	// Seq names a request; the forker echoes it in its answer and in the
	// init's msgReaped, so that a pid reused between an init's reaping and
	// its report never mixes two inits up.
	Seq    uint64
	Kind   initKind
	AsRoot bool
	Cgroup bool
	Procs  int
	Pid    int
	Status int // msgReaped: the raw wait status
	Err    string
	// MoveErr is msgForked's report of a failed move into cgroup.procs.
	MoveErr string
}

func (m *forkMsg) encode() []byte {
	var e encoder
	e.str(m.Type)
	e.uint(m.Seq)
	e.int(int(m.Kind))
	e.bool(m.AsRoot)
	e.bool(m.Cgroup)
	e.int(m.Procs)
	e.int(m.Pid)
	e.int(m.Status)
	e.str(m.Err)
	e.str(m.MoveErr)
	return e.b
}

func decodeForkMsg(b []byte) (forkMsg, error) {
	d := &decoder{b: b}
	m := forkMsg{Type: d.str(), Seq: d.uint(), Kind: initKind(d.int()), AsRoot: d.bool(), Cgroup: d.bool(), Procs: d.int(),
		Pid: d.int(), Status: d.int(), Err: d.str(), MoveErr: d.str()}
	return m, d.finish()
}

// errForkerGone reports a forker that exited or broke its protocol; the
// Runtime then clones inits itself.
var errForkerGone = errors.New("the init forker is gone")

// forker is a Runtime's handle on its forker process.
type forker struct {
	cmd  *exec.Cmd
	sock *os.File // read closes it, and only read: see fork and close

	reqMu sync.Mutex // serialises requests: one in flight

	mu      sync.Mutex
	seq     uint64                 // the last request's
	pending chan forkReply         // the request in flight's answer, if any
	procs   map[uint64]*forkedProc // cloned, not yet reaped, by request
	gone    bool                   // exited, or broken: no request may use it
}

type forkReply struct {
	proc *forkedProc
	err  error
}

// forkTimeout bounds a request: a forker that does not answer by then
// (stopped, or wedged) is killed and the Runtime clones its inits itself.
const forkTimeout = 3 * time.Second

// startForker starts a forker from the spawner thread.
func startForker() (*forker, error) {
	sock, child, err := socketpair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{forkerArg0}, Env: forkerEnv, Dir: "/",
		ExtraFiles: []*os.File{child},
		// A process group of its own: a terminal's ^C or ^Z, or a signal to
		// the caller's group, must not reach it (and its inits with it).
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}}
	if err := startOnSpawner(cmd); err != nil {
		sock.Close()
		return nil, fmt.Errorf("start the init forker: %w", err)
	}
	return newForker(cmd, sock), nil
}

// newForker follows the started forker cmd over sock, this process's end
// of their socket pair.
func newForker(cmd *exec.Cmd, sock *os.File) *forker {
	f := &forker{cmd: cmd, sock: sock, procs: make(map[uint64]*forkedProc)}
	go f.read()
	return f
}

// fork has the forker clone an init of kind whose control socket is ctl,
// into the cgroup cg when it is not nil, and move it into the cgroups of
// the cgroup.procs files procs (procsFiles) before it could reap it. A
// forker that does not answer within forkTimeout is killed.
func (f *forker) fork(kind initKind, asRoot bool, ctl, cg *os.File, procs ...*os.File) (*forkedProc, error) {
	f.reqMu.Lock()
	defer f.reqMu.Unlock()
	answer := make(chan forkReply, 1)
	f.mu.Lock()
	gone := f.gone
	if !gone {
		f.pending = answer
		f.seq++
	}
	seq := f.seq
	f.mu.Unlock()
	if gone {
		return nil, errForkerGone
	}
	m := forkMsg{Type: msgFork, Seq: seq, Kind: kind, AsRoot: asRoot, Cgroup: cg != nil, Procs: len(procs)}
	fds := []int{int(ctl.Fd())}
	if cg != nil {
		fds = append(fds, int(cg.Fd()))
	}
	for _, p := range procs {
		fds = append(fds, int(p.Fd()))
	}
	if err := f.send(m.encode(), fds); err != nil {
		f.abandon(answer)
		return nil, fmt.Errorf("%w: %w", errForkerGone, err)
	}
	timer := time.NewTimer(forkTimeout)
	defer timer.Stop()
	select {
	case r, ok := <-answer:
		if !ok {
			return nil, errForkerGone
		}
		return r.proc, r.err
	case <-timer.C:
	}
	if !f.abandon(answer) {
		// The answer came in just now.
		if r, ok := <-answer; ok {
			return r.proc, r.err
		}
		return nil, errForkerGone
	}
	f.retire()
	return nil, fmt.Errorf("%w: no answer in %v", errForkerGone, forkTimeout)
}

// retire stops using a forker that did not answer in time. One that is
// only slow (a loaded machine) is told to stop once the sandboxes it
// cloned are gone, which run on meanwhile; one that is stopped (SIGSTOP),
// or has none, is killed.
func (f *forker) retire() {
	f.close()
	f.mu.Lock()
	idle := len(f.procs) == 0
	f.mu.Unlock()
	if idle || processStopped(f.cmd.Process.Pid) {
		_ = f.cmd.Process.Kill()
	}
}

// processStopped reports whether pid, a child of this process, is stopped
// by a signal (state T in /proc/PID/stat).
func processStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'T'
}

// send writes a request. The socket is used under a reference (Control),
// so that read, closing it meanwhile, cannot free its number for reuse.
func (f *forker) send(b []byte, fds []int) error {
	rc, err := f.sock.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = sendBytes(int(fd), b, fds...) }); err != nil {
		return err
	}
	return serr
}

// abandon gives up on the answer to a request: the forker is broken, and
// no later request may take an answer that comes late. It reports false
// if the answer was already given.
func (f *forker) abandon(answer chan forkReply) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending != answer {
		return false
	}
	f.pending = nil
	f.gone = true
	return true
}

// read dispatches the forker's messages until it exits.
func (f *forker) read() {
	fd := int(f.sock.Fd())
	for {
		b, fds, err := recvBytes(fd)
		if errors.Is(err, errClosed) {
			break // the forker exited
		}
		var m forkMsg
		if err == nil {
			if m, err = decodeForkMsg(b); err != nil {
				closeAll(fds)
			}
		}
		if err != nil {
			// A forker that broke the protocol may live on: end it (and
			// its inits) rather than wait for it.
			_ = f.cmd.Process.Kill()
			break
		}
		switch m.Type {
		case msgForked:
			f.forked(m, fds)
		case msgReaped:
			closeAll(fds)
			f.reaped(m.Seq, syscall.WaitStatus(m.Status), nil)
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
	answer := f.pending
	f.pending = nil
	f.mu.Unlock()
	// Each init is killed, but the kernel first kills and reaps the rest of
	// its pid namespace: report it once that is done, so that a Wait
	// returns only when the sandbox's processes are gone.
	if answer != nil {
		close(answer) // wakes a request waiting for its answer
	}
	awaitExit(procs, 5*time.Second)
	for _, p := range procs {
		p.exit(syscall.WaitStatus(syscall.SIGKILL), errForkerGone)
	}
	f.sock.Close() // a request or close still using it holds a reference
}

// awaitExit waits, up to d, until every proc has exited: its pidfd is
// readable once its pid namespace is empty and it is a zombie.
func awaitExit(procs map[uint64]*forkedProc, d time.Duration) {
	var pfds []unix.PollFd
	for _, p := range procs {
		p.mu.Lock()
		if p.pidfd >= 0 {
			pfds = append(pfds, unix.PollFd{Fd: int32(p.pidfd), Events: unix.POLLIN})
		}
		p.mu.Unlock()
	}
	deadline := time.Now().Add(d)
	for len(pfds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		_, err := unix.Poll(pfds, int(left.Milliseconds())+1)
		if err != nil && err != unix.EINTR {
			return
		}
		waiting := pfds[:0]
		for _, pfd := range pfds {
			if pfd.Revents == 0 {
				waiting = append(waiting, pfd)
			}
		}
		pfds = waiting
	}
}

func (f *forker) forked(m forkMsg, fds []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answer := f.pending
	if answer == nil || m.Seq != f.seq {
		// An answer nobody waits for (its request timed out, and the
		// forker was killed): its init dies with the forker.
		closeAll(fds)
		return
	}
	f.pending = nil
	if m.Err != "" || m.Pid <= 0 || len(fds) != 1 {
		closeAll(fds)
		err := errors.New(m.Err)
		if m.Err == "" {
			err = fmt.Errorf("%w: a reply without a pidfd", errForkerGone)
		}
		answer <- forkReply{err: err}
		return
	}
	p := &forkedProc{id: m.Pid, pidfd: fds[0], exited: make(chan struct{}), forker: f}
	if m.MoveErr != "" {
		p.moveErr = errors.New(m.MoveErr)
	}
	f.procs[m.Seq] = p
	answer <- forkReply{proc: p}
}

func (f *forker) reaped(seq uint64, ws syscall.WaitStatus, err error) {
	f.mu.Lock()
	p := f.procs[seq]
	delete(f.procs, seq)
	f.mu.Unlock()
	if p != nil {
		p.exit(ws, err)
	}
}

// close tells the forker to stop once the inits it cloned have exited; it
// keeps reporting their statuses until then. It does not wait for a
// request in flight (the forker may be stopped).
func (f *forker) close() {
	rc, err := f.sock.SyscallConn()
	if err != nil {
		return
	}
	// Under a reference: read may close the socket meanwhile.
	_ = rc.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_WR) })
}

// resume continues the forker if it is stopped (SIGSTOP).
func (f *forker) resume() { _ = f.cmd.Process.Signal(syscall.SIGCONT) }

// forkedProc is an init the forker cloned. It is signalled through its
// pidfd, so a signal never reaches a process that reused its pid.
type forkedProc struct {
	id     int
	forker *forker // which reaps it and reports its end; nil in tests
	// moveErr is the forker's failure to move it into the cgroups whose
	// cgroup.procs came with the request.
	moveErr error

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

// wait waits for the forker's report of the init's end. A forker that is
// stopped (SIGSTOP) once the init has exited would hold the report up for
// ever: it is killed, as when a request to it is overdue, and its end
// reports the init's.
func (p *forkedProc) wait() (syscall.WaitStatus, error) {
	var tick *time.Ticker
	for {
		if tick == nil {
			select {
			case <-p.exited:
				return p.status, p.err
			default:
			}
			tick = time.NewTicker(reapOverdue)
			defer tick.Stop()
		}
		select {
		case <-p.exited:
			return p.status, p.err
		case <-tick.C:
		}
		if p.forker != nil && p.hasExited() && processStopped(p.forker.cmd.Process.Pid) {
			_ = p.forker.cmd.Process.Kill()
		}
	}
}

// reapOverdue is how often a wait checks that the forker is not stopped
// while the init it waits for has exited unreported.
const reapOverdue = time.Second

// hasExited reports whether the init has exited (and its pid namespace is
// empty), reaped or not.
func (p *forkedProc) hasExited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pidfd < 0 {
		return true
	}
	pfd := []unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, 0)
	return err == nil && n > 0
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
