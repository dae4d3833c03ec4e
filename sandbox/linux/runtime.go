//go:build linux

// Package linux is agentbox's native Linux sandbox: user, mount, pid, net,
// ipc, uts and cgroup namespaces; a new read-only root built with
// pivot_root; Landlock as an independent second filesystem layer; a seccomp
// filter; no capabilities and no new privileges; rlimits.
//
// The agentbox binary re-executes itself (/proc/self/exe) as the sandbox's
// init, pid 1 of the new namespaces. The init receives its spec over a
// control socket, builds the root, applies the per-thread layers to one
// locked thread and forks the program from it, then forwards signals, reaps
// orphans and reports the program's exit status. Since the spec comes over
// the socket, a Runtime keeps an init started ahead of need ("warm"), which
// takes namespace creation and the Go runtime's start-up off the path of
// every command.
package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// sandboxID is the host uid and gid a sandbox started by root runs as: root
// inside the sandbox, nobody outside it, so root-only files on the host
// (/etc/shadow, ...) stay unreadable. The writable roots are idmapped so that
// their owner appears as the sandbox's root.
const sandboxID = 65534

// Runtime is the native runtime. The zero value is ready to use; Close it
// to stop the warm inits it keeps.
type Runtime struct {
	// ColdStart starts every init on demand instead of keeping one warm.
	ColdStart bool

	idmaps idmapCache
	pool   pool
	once   sync.Once
	asRoot bool
	// keepLastWatch, set by tests, takes the watch a handle holds the last
	// reference to (releaseWatch) instead of closing it.
	keepLastWatch func(*os.File)

	mu       sync.Mutex
	nsReason string // why namespaces are unavailable, once known
	nsProbe  sync.Once
	fork     forkerState
}

// forkerState is a Runtime's forker: not started, starting, running, or
// off for good (it could not start, it broke, or the Runtime closed).
type forkerState struct {
	f        *forker
	starting bool
	off      bool
}

func (r *Runtime) init() { r.once.Do(func() { r.asRoot = os.Geteuid() == 0 && inInitialUserNS() }) }

// inInitialUserNS reports whether this process runs in the host's user
// namespace. Root inside a user namespace (a rootless container, a test's
// unshare -U) owns nothing on the host: it is treated as an ordinary user.
func inInitialUserNS() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295"
}

// ownsHostRootFiles reports whether this process is root over the host's
// root-owned files: uid 0 here, mapped to uid 0 on the host (the host's
// user namespace, or one that maps root to root).
func ownsHostRootFiles() bool {
	if os.Geteuid() != 0 {
		return false
	}
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return true // cannot tell: assume the worst
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "0" && f[1] == "0" {
			return true
		}
	}
	return false
}

// Name returns "native".
func (*Runtime) Name() string { return "native" }

// Close stops the warm inits, waits for the sandboxes' cgroups to be
// removed and closes the user namespaces kept for idmapped mounts (a
// sandbox still being set up holds its own descriptors of them).
func (r *Runtime) Close() error {
	r.pool.close()
	r.mu.Lock()
	f := r.fork.f
	r.fork = forkerState{off: true}
	r.mu.Unlock()
	if f != nil {
		f.close()
		// A forker stopped (SIGSTOP) would never read the end, and no
		// request will come to find it overdue: it would stay behind for
		// ever, with its inits. Resumed, it ends once they have exited.
		f.resume()
	}
	cleanups.Wait()
	r.idmaps.close()
	return nil
}

// forker returns the Runtime's forker once it runs. The first call starts
// it in the background and returns nil: the init needed now is started
// directly rather than wait for the forker's own start.
func (r *Runtime) forker() *forker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fork.f != nil || r.fork.starting || r.fork.off {
		return r.fork.f
	}
	r.fork.starting = true
	go func() {
		f, err := startForker()
		r.mu.Lock()
		defer r.mu.Unlock()
		r.fork.starting = false
		if err != nil || r.fork.off {
			r.fork.off = true
			if f != nil {
				f.close()
			}
			return
		}
		r.fork.f = f
	}()
	return nil
}

// dropForker stops using f, which failed: the Runtime clones its inits
// itself from now on.
func (r *Runtime) dropForker(f *forker) {
	r.mu.Lock()
	if r.fork.f == f {
		r.fork = forkerState{off: true}
	}
	r.mu.Unlock()
	f.close()
}

// Warm starts an init ahead of need for sandboxes with (or without) a
// network namespace, so that the next Start finds it ready.
func (r *Runtime) Warm(netns bool) {
	r.init()
	if r.ColdStart || r.noNamespaces() != "" {
		return
	}
	r.pool.warm(r, warmKind(netns), false)
}

// WarmFirst starts, whatever ColdStart says, one init for the next Start
// of a sandbox with (or without) a network namespace, cloned by this
// process: a program that runs one command (the CLI) gets its sandbox
// started while it prepares the command, and, being ColdStart, no spare
// after it nor a forker process for spares.
func (r *Runtime) WarmFirst(netns bool) {
	r.init()
	if r.noNamespaces() != "" {
		return
	}
	r.pool.warm(r, warmKind(netns), true)
}

// warmKind is the kind of init warmed for sandboxes with (or without) a
// network namespace.
func warmKind(netns bool) initKind {
	if netns {
		return kindNetns
	}
	return kindHostnet
}

// noNamespaces returns why namespaces are unavailable, once a start found
// out; "" while they work (or nobody tried).
func (r *Runtime) noNamespaces() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nsReason
}

// kindFor picks how to clone the init for spec, or refuses: the reduced
// tier only runs when the spec allows it.
func (r *Runtime) kindFor(spec *sandbox.Spec) (initKind, error) {
	if reason := r.noNamespaces(); reason != "" {
		if !spec.AllowReduced {
			return 0, fmt.Errorf("%w: %s; the strict fallback policy refuses to run without them", sandbox.ErrUnavailable, reason)
		}
		if ownsHostRootFiles() {
			// Without a user namespace to run it as nobody, the command
			// would be root, able to read root-only files by owner rights.
			return 0, fmt.Errorf("%w: %s; the reduced tier would run the command as root, able to read root-only files such as /etc/shadow: run agentbox as an ordinary user, or make user namespaces available",
				sandbox.ErrUnavailable, reason)
		}
		return kindReduced, nil
	}
	if !r.asRoot && ownsHostRootFiles() {
		// Root in a user namespace that maps root to the host's root has
		// no other uid to run the command as: it would stay root over the
		// host's files.
		return 0, fmt.Errorf("%w: agentbox runs as root in a user namespace that maps root to the host's root, where it cannot run the command as nobody: it would read root-only files such as /etc/shadow; run agentbox as an ordinary user, or in the host's user namespace", sandbox.ErrUnavailable)
	}
	if spec.Network == sandbox.NetworkAllowed {
		return kindHostnet, nil
	}
	return kindNetns, nil
}

// Prepare implements sandbox.Runtime: it rewrites cmd to start a new init,
// which the caller starts; the program inherits cmd's standard streams.
func (r *Runtime) Prepare(spec *sandbox.Spec, cmd *exec.Cmd) (sandbox.Handle, error) {
	if cmd == nil {
		return nil, fmt.Errorf("%w: nil command", sandbox.ErrSetup)
	}
	r.init()
	// The caller starts cmd, too late to fall back: find out now.
	r.nsProbe.Do(func() {
		if c := probeUserns(); !c.OK {
			r.mu.Lock()
			r.nsReason = c.Detail
			r.mu.Unlock()
		}
	})
	kind, err := r.kindFor(spec)
	if err != nil {
		return nil, err
	}
	prog := &sandbox.Program{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir}
	h, err := r.newHandle(spec, prog, kind)
	if err != nil {
		return nil, err
	}
	if err := h.makeIdmaps(&r.idmaps, nil); err != nil {
		h.Close()
		return nil, err
	}
	ctl, child, err := socketpair()
	if err != nil {
		h.Close()
		return nil, err
	}
	h.ctl = ctl
	h.files = append(h.files, child)
	h.prepared, h.child = true, child
	attr := r.initAttr(kind)
	if kind != kindReduced {
		if err := h.cgroupForClone(attr); err != nil {
			h.Close()
			return nil, err
		}
	}
	if err := h.sendSpec(nil); err != nil {
		h.Close()
		return nil, err
	}
	cmd.Path, cmd.Args, cmd.Env, cmd.Dir = "/proc/self/exe", initArgs(kind), initEnv, "/"
	cmd.ExtraFiles = []*os.File{child}
	cmd.SysProcAttr = attr
	h.proc = cmdProc{cmd: cmd}
	h.start()
	return h, nil
}

// Start implements sandbox.Runtime: the program runs in a warm init when
// one is ready, in a new one otherwise.
func (r *Runtime) Start(ctx context.Context, spec *sandbox.Spec, prog *sandbox.Program) (sandbox.Process, error) {
	r.init()
	kind, err := r.kindFor(spec)
	if err != nil {
		return nil, err
	}
	w, err := r.pool.take(r, kind)
	var noNS *noNamespacesError
	if errors.As(err, &noNS) {
		r.mu.Lock()
		r.nsReason = noNS.Error()
		r.mu.Unlock()
		if kind, err = r.kindFor(spec); err == nil {
			w, err = r.pool.take(r, kind)
		}
	}
	if err != nil {
		return nil, err
	}
	h, err := r.newHandle(spec, prog, kind)
	if err != nil {
		w.discard()
		return nil, err
	}
	if w, err = r.movableInit(w, h, kind); err != nil {
		h.Close()
		return nil, err
	}
	h.proc, h.ctl = w.proc, w.ctl
	if !r.ColdStart && kind != kindReduced {
		h.released = func() { r.pool.warm(r, kind, false) }
	}
	// The init is reaped only once the work that names it by pid (its
	// cgroup, its user namespace's idmaps) is done: reaped, its pid could
	// be another process's.
	reap := func() { go func() { h.waitStatus, h.waitErr = w.proc.wait(); close(h.reaped) }() }
	moving := w.settleCgroup()
	if err := h.joinCgroup(w); err != nil {
		_ = h.Kill()
		reap()
		h.Close()
		return nil, err
	}
	if err := h.makeIdmaps(&r.idmaps, w.proc); err != nil {
		_ = h.Kill()
		reap()
		h.Close()
		return nil, err
	}
	reap()
	stdio := &[3]*os.File{prog.Stdin, prog.Stdout, prog.Stderr}
	if prog.Terminal {
		stdio = nil // the init makes the program's terminal
	}
	// An init still being moved into its cgroup builds the sandbox
	// meanwhile, and starts the program once told the move is done.
	h.plan.init.AwaitCgroup = moving
	err = h.sendSpec(stdio)
	if err == nil && moving && h.releaseInit(<-w.cgMoved) != nil {
		// The init is gone: it failed while it built the sandbox, and its
		// report, which Ready returns, says why. (Or it cannot be told:
		// it must not wait for ever.)
		_ = h.Kill()
	}
	h.start() // serve owns the control socket from here on
	if err != nil {
		_ = h.Kill()
		h.Close()
		return nil, err
	}
	if err := h.Ready(ctx); err != nil {
		_ = h.Kill()
		<-h.reaped
		h.Close()
		var se *sandbox.SetupError
		if errors.As(err, &se) && se.Stage == stageNoCapabilities {
			// Namespaces that grant nothing are none: refuse, or take the
			// reduced tier, as where they cannot be made at all.
			r.mu.Lock()
			r.nsReason = se.Msg
			r.mu.Unlock()
			return r.Start(ctx, spec, prog)
		}
		return nil, err
	}
	return h, nil
}

// movableInit returns w, or an init started here instead when w, cloned
// by the forker without a cgroup, would have to be moved into the cgroup
// h's limits need: only the forker may write its pid, since it reaps it
// (once reaped, the pid may be another process's, which would be moved
// into the sandbox's cgroup and killed with it).
func (r *Runtime) movableInit(w *warmInit, h *handle, kind initKind) (*warmInit, error) {
	if _, forked := w.proc.(*forkedProc); !forked || w.cg != nil {
		return w, nil
	}
	if _, want := h.cgroupLimits(); !want {
		return w, nil
	}
	if cgroups.find(); cgroups.version == 0 {
		return w, nil // no cgroup to move it into: rlimits alone apply
	}
	w.discard()
	return startInit(r, kind)
}

func (r *Runtime) newHandle(spec *sandbox.Spec, prog *sandbox.Program, kind initKind) (*handle, error) {
	var pl *plan
	var err error
	if kind == kindReduced {
		pl, err = buildReducedPlan(spec, r.noNamespaces())
	} else {
		pl, err = buildPlan(spec, r.asRoot)
	}
	if err != nil {
		return nil, err
	}
	h := &handle{spec: spec, plan: pl, created: time.Now(), ready: make(chan struct{}), done: make(chan struct{}), reaped: make(chan struct{})}
	h.keepLastWatch = r.keepLastWatch
	s := &pl.init
	s.Path, s.Args, s.Env, s.Dir = prog.Path, prog.Args, prog.Env, prog.Dir
	s.Terminal = prog.Terminal
	s.TermRows, s.TermCols = int(prog.TerminalSize[0]), int(prog.TerminalSize[1])
	if len(s.Args) == 0 {
		s.Args = []string{prog.Path}
	}
	if s.Env == nil {
		s.Env = []string{}
	}
	if s.Dir == "" {
		s.Dir = "/"
	}
	if pl.tmpDir != "" {
		s.Env = privateTmpEnv(s.Env, pl.tmpDir)
	}
	return h, nil
}

// initEnv is the init's own environment: it needs nothing but a small
// runtime.
var initEnv = append([]string{"GOMAXPROCS=1", "GOGC=off"}, raceEnv...)

// initAttr is how every init is cloned.
func (r *Runtime) initAttr(kind initKind) *syscall.SysProcAttr { return initAttrFor(kind, r.asRoot) }

// initAttrFor is how an init of kind is cloned by root (in the host's user
// namespace) or by anyone else.
func initAttrFor(kind initKind, asRoot bool) *syscall.SysProcAttr {
	if kind == kindReduced {
		// Not SIGKILL: the init outlives agentbox to end the tree.
		return &syscall.SysProcAttr{Pdeathsig: reducedDeathSignal, Setpgid: true}
	}
	netns := kind == kindNetns
	uid, gid := os.Geteuid(), os.Getegid()
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
		Setpgid:     true,
	}
	if netns {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if asRoot {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: sandboxID, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: sandboxID, Size: 1}}
		// Drop root's supplementary groups: the kernel would keep honouring
		// them inside the namespace.
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	} else {
		// The init keeps the caller's uid inside the namespace, so execve
		// would drop the capabilities the new user namespace gave it; raise
		// them as ambient so they survive into the init, which drops them
		// all before the program starts.
		for c := 0; c <= lastCap(); c++ {
			attr.AmbientCaps = append(attr.AmbientCaps, uintptr(c))
		}
	}
	return attr
}

func socketpair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: socketpair: %w", sandbox.ErrSetup, err)
	}
	return os.NewFile(uintptr(fds[0]), "agentbox-ctl"), os.NewFile(uintptr(fds[1]), "agentbox-ctl-child"), nil
}
