//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The agentbox binary re-executes itself as the sandbox's init: the first
// process in the new namespaces (pid 1 of its pid namespace), and as the
// forker that clones a Runtime's warm inits. Detecting that in a package
// init function means every program that links this package behaves
// correctly, whether or not it remembered to call MaybeInit first.
func init() { MaybeInit() }

// MaybeInit runs the sandbox init (or the init forker) when the current
// process is one, and never returns in that case. Programs that embed
// agentbox may call it first thing in main; the package's own init
// function already does the same.
func MaybeInit() {
	if len(os.Args) == 0 {
		return
	}
	switch os.Args[0] {
	case initArg0:
		os.Exit(runInit())
	case forkerArg0:
		os.Exit(runForker())
	}
}

// protective watches the mounts that protect paths while the program runs
// (see mountWatch).
var protective mountWatch

// initError is a failure of one stage of the sandbox set-up.
type initError struct {
	stage       string
	err         error
	unavailable bool
}

func (e *initError) Error() string { return e.stage + ": " + e.err.Error() }

// stageNoCapabilities marks an init whose namespaces grant it nothing: the
// runtime then treats namespaces as unavailable.
const stageNoCapabilities = "namespaces"

func stageErr(stage string, err error) error {
	if err == nil {
		return nil
	}
	return &initError{stage: stage, err: err}
}

// Exit statuses of the init when it could not run the program.
const (
	exitSetupFailed = 125
	exitNotExec     = 126
	exitNotFound    = 127
)

// runInit builds the sandbox, starts the program and waits for it. It returns
// the program's exit status (128+N for a signal).
func runInit() int {
	// The init must not be signalled to death by its own children; it forwards
	// the signals it gets from outside to the program instead.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals...)
	// Nor killed by a closed pipe or stopped by a background read or write
	// on a terminal. Those are caught and dropped, not ignored: an ignored
	// signal stays ignored across exec, in the program and everything it
	// starts (yes | head -1 would report a broken pipe), while a caught one
	// is reset to the default there.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE, syscall.SIGTTIN, syscall.SIGTTOU)
	// Known once the parent-death signal is caught: a parent that died
	// before shows as the closed control socket instead (awaitKill).
	initParent = os.Getppid()
	// Neither the program nor anything else may read the init's memory.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)

	// Nothing the init inherited or opens may reach the program: mark every
	// descriptor above the standard streams close-on-exec, once the ones it
	// inherited by mistake are closed (the sandbox's lifetime is long to
	// hold, say, a pipe's write end open).
	closeInherited()
	_ = unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	prebuilt, prebuildErr := prebuildAllowed(), error(nil)
	if prebuilt {
		if prebuildErr = prebuildRoot(); prebuildErr == nil {
			prepareAhead()
		}
	}
	pid, layers, err := setUp(prebuilt, prebuildErr)
	if err != nil {
		code := exitSetupFailed
		var ie *initError
		if errors.As(err, &ie) && ie.stage == "exec" {
			code = exitNotExec
			if errors.Is(ie.err, unix.ENOENT) {
				code = exitNotFound
			}
		}
		reportError(err, code)
		return code
	}
	go awaitKill()
	watch := protective.inotifyFD()
	ready := ctlMsg{Type: msgReady, Layers: layers, Terminal: terminalFD >= 0, Started: programStarted, Watch: watch >= 0}
	fds := proxyListenerFD()
	if watch >= 0 {
		fds = append(fds, watch)
	}
	shared := sendMsg(ctlFD, ready, append(fds, terminalFDs()...)...) == nil && watch >= 0
	closeProxyListener()
	closeTerminal()
	code, sig := reap(pid, sigs)
	killOrphans()
	removeOrphanedTmp()
	_ = sendMsg(ctlFD, ctlMsg{Type: msgExit, Code: code, Signal: int(sig), Err: protective.reason()})
	if shared {
		awaitRelease()
	}
	return code
}

// privateTmp is the reduced tier's private temporary directory
// (spec.PrivateTmp), once the spec is read.
var privateTmp string

// removeOrphanedTmp removes the reduced tier's private temporary directory
// when agentbox died before the tree ended: the directory, and what the
// program left in it, would otherwise stay in the host's /tmp, where the
// full tier's private /tmp (a tmpfs of its mount namespace) vanishes with
// the sandbox. Called once the tree has ended (killOrphans), so nothing
// of the program writes there any more. While agentbox lives, it removes
// the directory itself when it releases the sandbox.
func removeOrphanedTmp() {
	if privateTmp != "" && initParent > 1 && os.Getppid() != initParent {
		_ = removeOwnedTree(privateTmp)
	}
}

// awaitKill ends the sandbox's tree when the parent asks (msgKill), once
// the program has started; a msgKill that came before is read here, still
// queued. As process 1 of its pid namespace, the init kills every other
// process in it. Without one (the reduced tier), kill(-1) would reach
// every process of the user on the host: it kills the tree below itself
// (killTree: its descendants and their process groups; not the program's
// pid, which may be reaped and reused by then), and reap's killOrphans
// what is left. reap then reports the program killed. A control socket
// closed by agentbox's death is a msgKill too (see reducedDeathSignal).
//
// It reads the socket until it closes (ctlClosed), also after a msgKill:
// awaitRelease waits for that close.
func awaitKill() {
	defer close(ctlClosed)
	for {
		m, fds, err := recvMsg(ctlFD)
		closeAll(fds)
		if err != nil {
			if errors.Is(err, errClosed) && !exiting.Load() {
				// agentbox died. A pid namespace's init dies of its
				// parent-death signal and takes the tree along; the
				// reduced tier's survives it to end the tree here.
				killSandbox()
			}
			return
		}
		switch m.Type {
		case msgKill:
			killSandbox()
		case msgSignal:
			select {
			case asked <- syscall.Signal(m.Signal):
			default: // the program has ended (reap reads no more), or eight wait
			}
		}
	}
}

// asked carries the signals the parent asks the init to send to the
// program's process group (msgSignal); reap sends them as it forwards the
// ones the init receives.
var asked = make(chan os.Signal, 8)

// killSandbox kills every process of the sandbox but the init: as process
// 1 of its pid namespace, with one call; without one (the reduced tier),
// the tree below it (see awaitKill).
func killSandbox() {
	if os.Getpid() == 1 {
		_ = unix.Kill(-1, unix.SIGKILL)
	} else {
		killTree()
	}
}

// killQueued reports whether the parent asked for the sandbox's end
// (msgKill) before the program started: it is then not started. A
// msgKill that comes later is awaitKill's.
func killQueued() bool {
	var buf [512]byte
	n, _, _, _, err := unix.Recvmsg(ctlFD, buf[:], nil, unix.MSG_PEEK|unix.MSG_DONTWAIT)
	if err != nil || n <= 0 || n > len(buf) {
		return false
	}
	m, err := decodeCtlMsg(buf[:n])
	return err == nil && m.Type == msgKill
}

// reportError tells the parent (and, for callers that only see stderr, the
// user) why the sandbox could not be built.
func reportError(err error, code int) {
	m := ctlMsg{Type: msgError, Err: err.Error(), Code: code}
	var ie *initError
	if errors.As(err, &ie) {
		m.Stage, m.Err, m.Unavailable = ie.stage, ie.err.Error(), ie.unavailable
	}
	if sendMsg(ctlFD, m) != nil {
		fmt.Fprintf(os.Stderr, "agentbox: sandbox: %v\n", err)
	}
}

// prebuildArg, an init's first argument, says that it was cloned into
// namespaces of its own, where it may build the spec-independent part of
// its root before the spec comes.
const prebuildArg = "prebuild"

// initArgs is the argument vector of an init of kind.
func initArgs(kind initKind) []string {
	if kind == kindReduced {
		return []string{initArg0}
	}
	return []string{initArg0, prebuildArg}
}

// prebuildAllowed reports whether this init may build its root before the
// spec: it was told so, and it is pid 1 of a pid namespace of its own (an
// init of the reduced tier, in the host's namespaces, never mounts).
func prebuildAllowed() bool {
	return len(os.Args) == 2 && os.Args[1] == prebuildArg && os.Getpid() == 1
}

// setUp runs every stage in order and starts the program. prebuilt says
// the root's spec-independent part was built before the spec came, and
// prebuildErr why that failed.
func setUp(prebuilt bool, prebuildErr error) (int, []string, error) {
	spec, fds, err := readSpec()
	if err != nil {
		return 0, nil, stageErr("spec", err)
	}
	sendSelf()
	stdio, idmapFDs := fds.stdio, fds.idmaps
	defer closeAll(fds.cgroupTasks) // joined by then (startLocked), or never to be
	if prebuildErr != nil {
		return 0, nil, prebuildErr
	}
	if spec.Reduced != "" && prebuilt {
		return 0, nil, stageErr("spec", errors.New("a reduced-tier spec sent to an init in namespaces of its own"))
	}
	if spec.Reduced != "" {
		privateTmp = spec.PrivateTmp
	}
	var layers []string
	if spec.Reduced != "" {
		// No namespaces: the program's orphans come back to the init, which
		// ends them with the program.
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return 0, nil, stageErr("subreaper", err)
		}
		layers = append(layers, LayerReduced+": "+spec.Reduced)
	} else {
		scratch, err := buildRoot(spec, idmapFDs, prebuilt, &protective)
		if err != nil {
			return 0, nil, err
		}
		if err := protective.start(); err != nil {
			return 0, nil, stageErr("mount watch", err)
		}
		closeAll(idmapFDs)
		layers = append(layers, LayerNamespaces, LayerPivotRoot)
		if l := protective.timedLayer(); l != "" {
			layers = append(layers, l)
		}
		layers = append(layers, scratch...)
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return 0, nil, stageErr("hostname", err)
		}
		netLayer, err := setUpNetwork(spec)
		if err != nil {
			return 0, nil, stageErr("network", err)
		}
		layers = append(layers, netLayer)
	}

	if spec.Reduced != "" && spec.Limits.uncounted() {
		// The host's /dev/zero, for reading only: a shared mapping of it
		// is a shmem object whose pages, dropped from the page tables, no
		// per-process count sees (the full tier's is /dev/full then: see
		// zeroDevice). Without write access a shared mapping cannot be
		// written, and reading one allocates nothing; reads and private
		// mappings are unchanged.
		spec.Landlock.Devices = slices.DeleteFunc(slices.Clone(spec.Landlock.Devices), func(d string) bool { return d == "/dev/zero" })
	}
	ll, err := prepareLandlock(&spec.Landlock)
	switch {
	case errors.Is(err, errNoLandlock) && spec.MissingLayers:
		ll = nil // the warn fallback: say so in the layers, run without it
	case errors.Is(err, errNoLandlock):
		return 0, nil, &initError{stage: "landlock", err: fmt.Errorf("%w; the strict fallback policy refuses to run without it", err), unavailable: true}
	case err != nil:
		return 0, nil, stageErr("landlock", err)
	}
	defer ll.close()
	// Unix sockets: Landlock confines them from ABI 9 on; before, seccomp
	// refuses to create them unless the policy allows them.
	allowUnix := spec.AllowUnixSockets || ll.confinesUnixSockets()
	// A memory limit no cgroup enforces (see plan.cgroupMemory), summed by
	// a monitor that asked for what it cannot count to be refused.
	uncounted := spec.Limits.uncounted()
	streamOnly := spec.Reduced != "" && spec.Network != "allowed"
	opts := seccompOptions{
		allowUnix:       allowUnix,
		streamOnly:      streamOnly,
		noTCP:           streamOnly && len(spec.Landlock.ConnectPorts) == 0,
		hostShared:      spec.Reduced != "",
		uncountedMemory: uncounted,
		dataLimit:       spec.Limits.MemoryBytes > 0,
	}
	if spec.Reduced != "" {
		layers = append(layers, ll.netLayer(&spec.Landlock, opts))
	}
	if err := setRlimits(spec.Limits, spec.Reduced != ""); err != nil {
		return 0, nil, stageErr("rlimits", err)
	}
	if err := disableHugePages(spec.Limits); err != nil {
		return 0, nil, stageErr("huge pages", err)
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return 0, nil, stageErr("workdir", fmt.Errorf("%s is not visible inside the sandbox (%v); make it a writable root or choose another working directory", spec.Dir, err))
	}
	path, err := lookPath(spec.Path, spec.Dir, spec.Env)
	if err != nil {
		return 0, nil, stageErr("exec", err)
	}
	if spec.Terminal {
		if stdio != nil {
			closeAll(stdio[:])
		}
		if terminalFD, stdio, err = openTerminal(spec.TermRows, spec.TermCols); err != nil {
			return 0, nil, stageErr("terminal", err)
		}
	}
	opts.callerTerminal = !spec.Terminal && anyTerminal(stdio)
	if spec.AwaitCgroup {
		if err := awaitCgroup(); err != nil {
			return 0, nil, stageErr("cgroup", err)
		}
	}
	if killQueued() {
		return 0, nil, stageErr("start", errors.New("the sandbox was ended before its program started"))
	}
	if why := protective.reason(); why != "" {
		return 0, nil, stageErr("mount watch", errors.New(why))
	}
	programStarted = monotonicNow()
	pid, err := startLocked(path, spec, stdio, fds.cgroupTasks, ll, opts)
	if err == nil {
		protective.started(pid)
	}
	if err == nil {
		if lerr := limitMemory(pid, spec.Limits.MemoryBytes); lerr != nil {
			_ = unix.Kill(pid, unix.SIGKILL)
			err = stageErr("rlimits", lerr)
		}
	}
	if stdio != nil {
		// Only the program holds its streams now, so its readers see EOF
		// when it is done, whatever the init does.
		closeAll(stdio[:])
	}
	if err != nil {
		return 0, nil, err
	}
	seccompLayer := LayerSeccomp + "(unix sockets: blocked)"
	switch {
	case ll.confinesUnixSockets():
		seccompLayer = LayerSeccomp + "(unix sockets: confined by landlock)"
	case allowUnix:
		seccompLayer = LayerSeccomp + "(unix sockets: allowed, host path sockets reachable)"
	}
	if uncounted {
		seccompLayer = strings.TrimSuffix(seccompLayer, ")") + "; memfd, System V IPC, shared anonymous mmap, vmsplice, splice, sendfile and SO_ZEROCOPY: refused, huge pages off, no memory cgroup)"
	}
	layers = append(layers, ll.layer(), seccompLayer, LayerNoNewPrivs, LayerCapsDropped, LayerRlimits)
	return pid, layers, nil
}

// awaitCgroup waits until the parent has moved the init into the
// sandbox's cgroup, so that the program starts inside it.
func awaitCgroup() error {
	m, fds, err := recvMsg(ctlFD)
	closeAll(fds)
	switch {
	case err != nil:
		return err
	case m.Type != msgCgroup:
		return fmt.Errorf("unexpected %q message", m.Type)
	case m.Err != "":
		return errors.New(m.Err)
	}
	return nil
}

// specFDs are the descriptors that came with the spec.
type specFDs struct {
	stdio       *[3]int // nil when the program inherits the init's own standard streams
	idmaps      []int
	cgroupTasks []int // see ctlMsg.CgroupTasks
}

// readSpec waits for the parent's msgSpec and returns the spec with the
// descriptors that came with it.
func readSpec() (*initSpec, specFDs, error) {
	m, fds, err := recvMsg(ctlFD)
	if err != nil {
		return nil, specFDs{}, err
	}
	want := m.Idmaps + m.CgroupTasks
	if m.Stdio {
		want += 3
	}
	if m.Payload == nil {
		want++ // the memfd
	}
	if m.Type != msgSpec || len(fds) != want {
		closeAll(fds)
		return nil, specFDs{}, fmt.Errorf("unexpected message %q with %d descriptors", m.Type, len(fds))
	}
	b := m.Payload
	rest := fds
	if b == nil {
		f := os.NewFile(uintptr(fds[0]), "spec")
		b, err = io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
		f.Close()
		rest = fds[1:]
		if err != nil {
			closeAll(rest)
			return nil, specFDs{}, err
		}
	}
	s, err := decodeInitSpec(b)
	if err != nil {
		closeAll(rest)
		return nil, specFDs{}, err
	}
	var got specFDs
	if m.Stdio {
		got.stdio = &[3]int{rest[0], rest[1], rest[2]}
		rest = rest[3:]
	}
	got.idmaps, got.cgroupTasks = rest[:m.Idmaps], rest[m.Idmaps:]
	return s, got, nil
}

// startLocked applies the per-thread layers (a cgroup namespace of its own,
// no_new_privs, capabilities, Landlock, seccomp) to one locked OS thread and
// forks the program from it, so that the program inherits them while the
// init's other threads do not.
// The thread is never handed back to the Go scheduler: its goroutine exits
// while still locked, which makes the runtime terminate the thread.
//
// In the reduced tier (no namespaces) the thread stays alive instead, so
// that the program's parent-death signal (which follows the forking thread)
// fires only when the init itself dies: there is no pid namespace to end the
// program then.
//
// The seccomp filter is built on that thread: in the reduced tier it names
// the thread, which stays in the program's Landlock domain, as one the
// program may not signal (keeperRules).
func startLocked(path string, spec *initSpec, stdio *[3]int, cgroupTasks []int, ll *landlockRuleset, opts seccompOptions) (int, error) {
	reduced := opts.hostShared
	files := []uintptr{0, 1, 2}
	if stdio != nil {
		files = []uintptr{uintptr(stdio[0]), uintptr(stdio[1]), uintptr(stdio[2])}
	}
	type result struct {
		pid int
		err error
	}
	done := make(chan result, 1)
	// The program must start under its memory limit (see inheritDataLimit):
	// the forking thread lowers the init's own limit before it locks
	// itself down (its seccomp filter refuses that after: dataLimitRules),
	// and the init raises it back once the fork is done. (Lowered by
	// another thread once this one was locked down, it cost two hand-offs
	// between threads, about 0.3 ms of every start.)
	var restore func() error
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: see above.
		if err := joinByTasks(cgroupTasks); err != nil {
			done <- result{err: stageErr("cgroup", err)}
			return
		}
		if err := normalPriority(); err != nil {
			done <- result{err: stageErr("priority", err)}
			return
		}
		if !reduced {
			// The init was cloned into a cgroup namespace, but a warm init
			// (and any init on cgroup v1) joins the sandbox's cgroups only
			// later, before its spec arrives. A namespace made now, on the
			// thread that forks the program, is rooted at them: the program
			// sees "/" and nothing of the host's cgroup tree.
			if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil {
				done <- result{err: stageErr("cgroup namespace", err)}
				return
			}
		} else {
			opts.keeper = uint32(unix.Gettid())
		}
		filter, err := seccompFilter(opts)
		if err != nil {
			done <- result{err: stageErr("seccomp", err)}
			return
		}
		if restore, err = inheritDataLimit(spec.Limits.MemoryBytes); err != nil {
			done <- result{err: stageErr("rlimits", err)}
			return
		}
		if err := lockDownThread(ll, filter); err != nil {
			done <- result{err: err}
			return
		}
		attr := &syscall.ProcAttr{
			Dir:   spec.Dir,
			Env:   spec.Env,
			Files: files,
			// A terminal of its own becomes the program's controlling
			// terminal: /dev/tty, job control and ^C work inside.
			Sys: &syscall.SysProcAttr{Setsid: true, Setctty: spec.Terminal, Ctty: 0},
		}
		if reduced {
			attr.Sys.Pdeathsig = syscall.SIGKILL
		}
		pid, err := syscall.ForkExec(path, spec.Args, attr)
		if err != nil {
			err = stageErr("exec", fmt.Errorf("%s: %w", spec.Args[0], err))
		}
		done <- result{pid, err}
		if reduced && err == nil {
			select {} // keep the thread, and the program's pdeathsig with it
		}
	}()
	r := <-done
	if restore != nil {
		if err := restore(); err != nil && r.err == nil {
			_ = unix.Kill(r.pid, unix.SIGKILL)
			r.err = stageErr("rlimits", err)
		}
	}
	return r.pid, r.err
}

// lockDownThread drops everything the program must not have, on the current
// thread only.
func lockDownThread(ll *landlockRuleset, filter []unix.SockFilter) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return stageErr("no_new_privs", err)
	}
	if err := dropCapabilities(); err != nil {
		return stageErr("capabilities", err)
	}
	if err := ll.restrictThread(); err != nil {
		return stageErr("landlock", err)
	}
	if err := loadSeccomp(filter); err != nil {
		return stageErr("seccomp", err)
	}
	return nil
}

// sendSelf sends the parent a pidfd of the init (msgSelf), before the
// program starts; see msgSelf.
func sendSelf() {
	self, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return // no pidfds (before 5.3): a Prepare'd init is not woken
	}
	_ = sendMsg(ctlFD, ctlMsg{Type: msgSelf}, self)
	unix.Close(self)
}
