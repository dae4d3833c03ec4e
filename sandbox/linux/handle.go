//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// handle follows one sandbox over its control socket. It is the
// sandbox.Handle of Prepare and the sandbox.Process of Start.
type handle struct {
	spec *sandbox.Spec
	plan *plan
	proc initProc // the init

	ctl   *os.File   // parent end of the control socket; serve owns it once started
	files []*os.File // what the init inherits; closed once it has started
	// prepared marks Prepare's handle, whose init the caller starts when
	// it likes; child is the init's end of the control socket, in files.
	prepared  bool
	child     *os.File
	withdrawn bool       // Kill took the spec back before the init read it
	killSent  bool       // Kill sent msgKill (Prepare's handle)
	idmaps    []*os.File // idmapped mount trees, sent with the spec
	cgroup    *sandboxCgroup
	cgDir     *os.File // the cgroup's directory, for CLONE_INTO_CGROUP
	// joinTasks says the init's forking thread joins cgroup (cgroup v1),
	// through the tasks files sendSpec sends.
	joinTasks bool
	// spareCgroup is the warm init's cgroup when the spec sets no limits.
	spareCgroup *sandboxCgroup

	ready    chan struct{} // closed once the init reported ready or failed
	readyErr error

	done   chan struct{} // closed when serve returns
	exited chan struct{} // closed when the program's exit is known
	// released, if set, runs when the handle is closed: the runtime
	// starts the next warm init then, not while this sandbox runs.
	released   func()
	reaped     chan struct{} // closed when the init was waited for (Start only)
	waitStatus syscall.WaitStatus
	waitErr    error

	created time.Time // when the handle was made: no program started earlier

	holdsOnce sync.Once // releaseHolds

	// watch is the init's mount-watch inotify instance (ctlMsg.Watch),
	// held until serve's end (releaseWatch); only serve touches it.
	watch         *os.File
	keepLastWatch func(*os.File) // Runtime.keepLastWatch

	mu       sync.Mutex
	started  time.Time // when the init started the program (msgReady)
	terminal *os.File  // the master of the program's terminal, until taken
	self     *os.File  // a pidfd of the init (msgSelf), kept for a Prepare'd init's wake
	layers   []string
	exit     *ctlMsg
	serving  bool
	closed   bool
}

// sendSpec sends the spec, the program's standard streams (nil: the init's
// own) and the idmapped trees to the init.
func (h *handle) sendSpec(stdio *[3]*os.File) error {
	m := ctlMsg{Type: msgSpec, Idmaps: len(h.idmaps)}
	var fds []int
	if spec := h.plan.init.encode(); len(spec) <= maxInlineSpec {
		m.Payload = spec // the usual case: no memfd to make
	} else {
		memfd, err := specMemfd(spec)
		if err != nil {
			return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
		}
		defer memfd.Close()
		fds = append(fds, int(memfd.Fd()))
	}
	if stdio != nil {
		m.Stdio = true
		for _, f := range stdio {
			if f == nil {
				var err error
				if f, err = devNull(); err != nil {
					return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
				}
			}
			fds = append(fds, int(f.Fd()))
		}
	}
	for _, f := range h.idmaps {
		fds = append(fds, int(f.Fd()))
	}
	if h.joinTasks {
		tasks, err := h.cgroup.tasksFiles()
		if err != nil {
			return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
		}
		defer closeFiles(tasks)
		m.CgroupTasks = len(tasks)
		for _, f := range tasks {
			fds = append(fds, int(f.Fd()))
		}
	}
	if len(fds) > maxFDsPerMsg {
		return fmt.Errorf("%w: %d idmapped trees (a root caller's writable roots need one each) are more than one message carries (%d); name fewer writable roots, or a common parent",
			sandbox.ErrSetup, len(h.idmaps), maxFDsPerMsg-(len(fds)-len(h.idmaps)))
	}
	if err := sendMsg(int(h.ctl.Fd()), m, fds...); err != nil {
		return fmt.Errorf("%w: send spec: %w", sandbox.ErrSetup, err)
	}
	for _, f := range h.idmaps {
		f.Close() // the message holds its own references
	}
	h.idmaps = nil
	return nil
}

// maxFDsPerMsg is the kernel's SCM_MAX_FD: the most descriptors one
// SCM_RIGHTS message carries.
const maxFDsPerMsg = 253

// devNull is /dev/null, opened once for every sandbox's missing streams.
var devNull = sync.OnceValues(func() (*os.File, error) { return os.OpenFile(os.DevNull, os.O_RDWR, 0) })

// start begins reading the init's messages.
func (h *handle) start() {
	h.exited = make(chan struct{})
	h.serving = true
	go h.serve()
}

// serve reads the init's messages until the socket closes.
func (h *handle) serve() {
	defer close(h.done)
	defer h.ctl.Close() // only here: closing it under a blocked read could reuse the number
	readyOnce := sync.OnceFunc(func() { close(h.ready) })
	exitOnce := sync.OnceFunc(func() { close(h.exited) })
	defer readyOnce()
	defer exitOnce()
	fd := int(h.ctl.Fd())
	for {
		m, fds, err := recvMsg(fd)
		if err != nil {
			if !h.isReady() {
				h.readyErr = fmt.Errorf("%w: the sandbox init exited before the program started", sandbox.ErrSetup)
			}
			h.releaseWatch()
			return
		}
		switch m.Type {
		case msgSelf:
			if len(fds) > 0 {
				h.setSelf(fds[0])
			}
			closeAll(fds[min(1, len(fds)):])
		case msgReady:
			if m.Terminal && len(fds) > 0 {
				h.setTerminal(fds[len(fds)-1])
				fds = fds[:len(fds)-1]
			}
			if m.Watch && len(fds) > 0 && h.watch == nil {
				h.watch = os.NewFile(uintptr(fds[len(fds)-1]), "agentbox-watch")
				fds = fds[:len(fds)-1]
			}
			if len(fds) == 1 {
				h.serveProxy(fds[0])
			} else {
				closeAll(fds)
			}
			h.mu.Lock()
			h.started = monotonicTime(m.Started, h.created)
			h.layers = m.Layers
			if h.cgroup != nil {
				h.layers = append(h.layers, h.cgroup.layer())
			}
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
			exitOnce()
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

// setTerminal keeps the master of the program's terminal for Terminal.
// It is made non-blocking, so that a read blocked in it ends when the
// caller closes it.
func (h *handle) setTerminal(fd int) {
	_ = unix.SetNonblock(fd, true)
	h.mu.Lock()
	h.terminal = os.NewFile(uintptr(fd), "agentbox-terminal")
	h.mu.Unlock()
}

// Terminal implements sandbox.Process.
func (h *handle) Terminal() *os.File {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.terminal
	h.terminal = nil
	return t
}

// serveProxy hands the listening socket created inside the sandbox's network
// namespace to the proxy, which owns it from then on.
func (h *handle) serveProxy(fd int) {
	f := os.NewFile(uintptr(fd), "agentbox-proxy")
	if h.spec.Proxy == nil {
		f.Close()
		return
	}
	go h.spec.Proxy(f)
}

// Ready implements sandbox.Handle. For Prepare's handle it may be called
// before the caller starts the init: the init's files stay open until
// Close (closing them from here could race with the caller's cmd.Start,
// which reads them).
func (h *handle) Ready(ctx context.Context) error {
	if !h.prepared {
		h.closeChildFiles()
	}
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
	closeFiles(files)
}

// Pid is the host pid of the init.
func (h *handle) Pid() int { return h.proc.pid() }

// FixedNames lists the names inside writable roots that a mount covered
// for the whole run: deny paths masked (a placeholder held a missing one),
// protected names kept read-only. The command could neither create nor
// replace any of them, so what stands there afterwards is agentbox's or
// the host's, not the command's.
func (h *handle) FixedNames() []string { return slices.Clone(h.plan.fixed) }

// Layers implements sandbox.Handle.
func (h *handle) Layers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.layers...)
}

// Degraded implements sandbox.Handle.
func (h *handle) Degraded() []string { return degradedLayers(h.Layers()) }

// Started returns when the init started the program: zero until it has
// (or if the init could not read its clock).
func (h *handle) Started() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started
}

// Signal sends sig to the program's process group. The signals a terminal
// delivers (forwardedSignals) go to the init, which forwards them; SIGKILL
// ends the sandbox (Kill); any other is sent by the init on request
// (msgSignal), since sent to the init it would act on the init alone:
// SIGSTOP stopped the init, with its mount watch, while the program ran
// on (red-team round 55).
func (h *handle) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("unsupported signal %v", sig)
	}
	switch {
	case s == syscall.SIGKILL:
		return h.Kill()
	case s == 0 || slices.Contains(forwardedSignals, os.Signal(s)):
		return h.proc.signal(s)
	}
	return h.askSignal(s)
}

// askSignal sends msgSignal: the init sends s to the program's process
// group.
func (h *handle) askSignal(s syscall.Signal) error {
	sent, err := h.tell(ctlMsg{Type: msgSignal, Signal: int(s)})
	if err == nil && !sent {
		return os.ErrProcessDone
	}
	return err
}

// Kill implements sandbox.Handle: killing the init tears down its pid
// namespace, which the kernel empties at once. Prepare's init is asked
// instead (see killPrepared); so is an init without a pid namespace (the
// reduced tier), whose death would leave the program's own children
// running: it ends the program's process group and its other children,
// and is killed after killGrace if it has not ended by then.
func (h *handle) Kill() error {
	if h.prepared {
		return h.killPrepared()
	}
	if h.plan.init.Reduced != "" {
		if err := h.askKill(); err != nil {
			return err
		}
		go func() {
			select {
			case <-h.done:
			case <-time.After(killGrace):
				_ = h.proc.signal(syscall.SIGKILL)
			}
		}()
		return nil
	}
	err := h.proc.signal(syscall.SIGKILL)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// killGrace is how long an init asked to end its tree (msgKill) has
// before it is killed: longer than it may take (orphansWait).
const killGrace = orphansWait + 2*time.Second

// killPrepared ends the sandbox of Prepare's handle, once: it takes back
// the spec while no init has read it (withdraw), or else asks the init
// (msgKill). The caller starts that init with its own cmd.Start, which
// writes cmd.Process while this runs in another goroutine: the init's
// process is not this handle's to touch. Once a msgKill is sent, nothing
// reads the init's end again: a withdraw would take the msgKill back.
func (h *handle) killPrepared() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.withdrawn {
		return nil
	}
	if !h.killSent && h.withdrawLocked() {
		return nil
	}
	var err error
	if !h.killSent {
		h.killSent = true
		err = h.askKill()
	}
	h.wakeLocked()
	return err
}

// setSelf keeps the init's pidfd (msgSelf) of a Prepare'd init; another
// init's is closed: its parent is the runtime, which signals it itself. A
// kill asked before the pidfd came wakes the init now.
func (h *handle) setSelf(fd int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.prepared || h.closed || h.self != nil {
		unix.Close(fd)
		return
	}
	h.self = os.NewFile(uintptr(fd), "agentbox-init")
	if h.killSent {
		h.wakeLocked()
	}
}

// wakeLocked (h.mu held) resumes a Prepare'd init its caller stopped
// (cmd.Process.Signal(SIGSTOP), a stop of its process group): a stopped
// init reads no msgKill, so no timeout, Cleanup or Close could end the
// program, which a stop of the init does not stop (red-team round 55).
// SIGCONT, which the init forwards to the program's group, is harmless
// to one not stopped. Each Kill wakes it again.
func (h *handle) wakeLocked() {
	if h.self != nil {
		_ = unix.PidfdSendSignal(int(h.self.Fd()), unix.SIGCONT, nil, 0)
	}
}

// askKill sends msgKill: the init ends the sandbox's tree as soon as the
// program has started, and does not start it when the message comes
// before. An init that has ended has nothing left to end.
func (h *handle) askKill() error {
	_, err := h.tell(ctlMsg{Type: msgKill})
	return err
}

// tell sends m to the init; sent is false where the init has ended (its
// end of the control socket is closed).
func (h *handle) tell(m ctlMsg) (sent bool, err error) {
	rc, err := h.ctl.SyscallConn()
	if err != nil {
		return false, err
	}
	var serr error
	// Control holds the descriptor open meanwhile: serve may close it.
	if err := rc.Control(func(fd uintptr) { serr = sendMsg(int(fd), m) }); err != nil {
		return false, nil // closed: the init has ended
	}
	if errors.Is(serr, unix.EPIPE) || errors.Is(serr, unix.ECONNRESET) {
		return false, nil
	}
	return serr == nil, serr
}

// withdrawLocked (h.mu held) takes back the spec that Prepare queued for
// an init the caller has not started yet (or that has not read it yet),
// and shuts the init's end of the control socket for reading: an init
// started later finds no spec and exits without running the program. It
// reports whether the spec was taken back (now or before).
func (h *handle) withdrawLocked() bool {
	if h.withdrawn {
		return true
	}
	// The child end stays in files until Close; under mu it cannot close.
	if !h.prepared || h.child == nil || !slices.Contains(h.files, h.child) {
		return false
	}
	bufs := msgBufs.Get().(*[2][]byte)
	defer msgBufs.Put(bufs)
	fd := int(h.child.Fd())
	n, oobn, _, _, err := unix.Recvmsg(fd, bufs[0], bufs[1], unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil || n == 0 {
		return false // nothing queued: the init has it
	}
	if cmsgs, err := unix.ParseSocketControlMessage(bufs[1][:oobn]); err == nil {
		for _, c := range cmsgs {
			if fds, err := unix.ParseUnixRights(&c); err == nil {
				closeAll(fds)
			}
		}
	}
	_ = unix.Shutdown(fd, unix.SHUT_RD)
	h.withdrawn = true
	return true
}

// AwaitExit waits, at most d, until the init of Prepare's handle has
// exited, whether or not it reported ready (one asked to end during its
// set-up may yet start the program, and ends it); it returns at once for
// an init the caller never started. It is called from the caller's
// goroutine (Wrap's cleanup), after its cmd.Start. The caller owns the
// init's cmd.Wait, so it looks without reaping (waitid with WNOWAIT); an
// init the caller has reaped already counts as exited.
func (h *handle) AwaitExit(d time.Duration) {
	pid := h.proc.pid()
	if pid <= 0 {
		return
	}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		if err != nil || info.Signo != 0 {
			return // reaped (ECHILD), or exited
		}
		select {
		case <-h.exited:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// Wait implements sandbox.Process: it returns as soon as the init reports
// the program's status, and reaps the init in the background.
func (h *handle) Wait() (sandbox.ExitStatus, error) {
	<-h.exited
	h.mu.Lock()
	exit := h.exit
	h.mu.Unlock()
	var st sandbox.ExitStatus
	if exit != nil {
		st = exitStatusOf(exit)
	} else {
		<-h.reaped
		st = decodeWait(h.waitStatus)
	}
	st.MemoryLimitHit = h.cgroup != nil && h.cgroup.oomKilled()
	return st, nil
}

// ExitStatus implements sandbox.Handle.
func (h *handle) ExitStatus(state *os.ProcessState) sandbox.ExitStatus {
	// The init reports the program's status before it exits; once it has
	// exited the report, if any, is in.
	if state != nil {
		<-h.done
	}
	h.mu.Lock()
	exit := h.exit
	h.mu.Unlock()
	if exit != nil {
		return exitStatusOf(exit)
	}
	if state == nil {
		return sandbox.ExitStatus{Code: -1}
	}
	return decodeWait(waitStatusOf(state))
}

// exitStatusOf is the status the init reported in msgExit.
func exitStatusOf(m *ctlMsg) sandbox.ExitStatus {
	return sandbox.ExitStatus{Code: m.Code, Signal: syscall.Signal(m.Signal), Stopped: m.Err}
}

// decodeWait is the status of an init that exited without reporting the
// program's.
func decodeWait(ws syscall.WaitStatus) sandbox.ExitStatus {
	if ws.Signaled() {
		return sandbox.ExitStatus{Code: 128 + int(ws.Signal()), Signal: ws.Signal()}
	}
	return sandbox.ExitStatus{Code: ws.ExitStatus()}
}

// Close implements sandbox.Handle.
func (h *handle) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	if h.terminal != nil { // never taken
		h.terminal.Close()
		h.terminal = nil
	}
	if h.self != nil {
		h.self.Close()
		h.self = nil
	}
	h.mu.Unlock()
	h.closeChildFiles()
	for _, f := range h.idmaps {
		f.Close()
	}
	if h.cgDir != nil {
		h.cgDir.Close()
	}
	h.cgroup.closeAsync()
	h.spareCgroup.closeAsync()
	if !h.serving && h.ctl != nil {
		h.ctl.Close()
	}
	h.releaseHolds()
	if h.released != nil {
		h.released()
	}
	return nil
}

// releaseInit tells an init that waits for its move into the sandbox's
// cgroup (AwaitCgroup) that the move is done. A failed move fails the
// sandbox when its limits need the cgroup.
func (h *handle) releaseInit(moveErr error) error {
	m := ctlMsg{Type: msgCgroup}
	if _, want := h.cgroupLimits(); moveErr != nil && want {
		m.Err = fmt.Sprintf("move into the sandbox's cgroup: %v", moveErr)
	}
	if err := sendMsg(int(h.ctl.Fd()), m); err != nil {
		return fmt.Errorf("%w: send cgroup: %w", sandbox.ErrSetup, err)
	}
	return nil
}

// limitsForCgroup says whether the spec has limits a cgroup enforces.
func (h *handle) cgroupLimits() (cgroupLimits, bool) {
	l := h.spec.Limits
	return cgroupLimits{memory: max(l.MemoryBytes, 0), pids: max(l.Processes, 0)}, l.MemoryBytes > 0 || l.Processes > 0
}

// joinCgroup gives the sandbox its cgroup: the one its warm init already
// sits in, or a new one it moves the init into before the init gets its
// spec. Everything the init starts inherits it. On cgroup v1 the init's
// thread that forks the program joins it instead (tasksFiles). Without
// cgroups, rlimits alone apply.
func (h *handle) joinCgroup(w *warmInit) error {
	lim, want := h.cgroupLimits()
	cg := w.cg
	w.cg = nil
	if !want {
		// The init sits in it (cgroup v2) and cannot leave (closing it
		// would kill the init): keep it, without limits, until the sandbox
		// is released. (On v1 nothing joins it.)
		h.spareCgroup = cg
		return nil
	}
	if cg == nil {
		var err error
		if cg, err = newSandboxCgroup(); err != nil {
			return nil
		}
		if cg.version == 1 {
			w.joinTasks = true
		} else if err := cg.add(w.proc.pid()); err != nil {
			cg.closeAsync()
			return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
		}
	}
	if err := cg.setLimits(lim); err != nil {
		cg.closeAsync()
		return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
	}
	h.cgroup, h.joinTasks = cg, w.joinTasks
	h.plan.cgroupMemory()
	return nil
}

// cgroupForClone gives a new init (Prepare's) the sandbox's cgroup: on
// cgroup v2 the init starts inside it (CLONE_INTO_CGROUP); on v1, where it
// cannot be placed before it starts, the init's thread that forks the
// program joins it through the tasks files sendSpec sends, as Start's
// inits do (tasksFiles), and refuses to start the program if it cannot.
// Without cgroups, rlimits alone apply.
func (h *handle) cgroupForClone(attr *syscall.SysProcAttr) error {
	lim, want := h.cgroupLimits()
	if !want {
		return nil
	}
	cg, err := newSandboxCgroup()
	if err != nil {
		return nil
	}
	if err := cg.setLimits(lim); err != nil {
		cg.closeAsync()
		return fmt.Errorf("%w: %w", sandbox.ErrSetup, err)
	}
	if cg.version == 1 {
		h.cgroup, h.joinTasks = cg, true // Close removes it
		h.plan.cgroupMemory()
		return nil
	}
	d, err := os.Open(cg.dirs[0])
	if err != nil {
		cg.closeAsync()
		return fmt.Errorf("%w: cgroup: %w", sandbox.ErrSetup, err)
	}
	h.cgroup, h.cgDir = cg, d
	h.plan.cgroupMemory()
	attr.UseCgroupFD, attr.CgroupFD = true, int(d.Fd())
	return nil
}
