package agentbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// Wrap rewrites cmd so that starting it runs its program inside a sandbox.
// The caller starts, waits for and reads cmd as usual (standard streams are
// passed through, not captured); cmd.Env, when nil, becomes the
// allow-listed part of the caller's environment. cleanup releases what the
// sandbox holds; call it after cmd.Wait (called while the command runs, it
// kills the sandbox's process tree first). Manager.Cleanup and Close kill
// the sandbox and, once its program can no longer run, release its
// placeholders, temporary directory and proxy; cleanup must still be
// called, in any order with them and cmd.Wait, for the rest. ctx, and WithTimeout, kill the
// sandbox's whole process tree when they end; a cmd started after ctx has
// ended, or after the Manager was closed, exits without running its
// program (status 125). cmd.SysProcAttr must be nil, or set no more than
// Setpgid and Pdeathsig: the sandbox makes the process attributes; and
// cmd.ExtraFiles empty: no descriptor but the standard streams reaches
// the program. The context of exec.CommandContext ends the whole tree too
// (its cmd.Cancel is replaced). The sandbox is ended by its own init, asked over its
// control socket: cmd.Process stays the caller's alone.
//
// A pipe, FIFO or regular file as cmd.Stdin reaches the program through a
// pipe of agentbox's, fed only as fast as the program reads (see
// streamKind); cleanup leaves in the caller's pipe or file what it did not
// read. A socket, pipe, FIFO or regular file as cmd.Stdout or cmd.Stderr
// becomes a plain writer that os/exec copies into: cmd.Wait then waits
// for the output to reach it, but after a timeout or an ended ctx for
// 2 s at most (the copy is then given up: a consumer that does not read
// cannot hold cmd.Wait), rather than through cmd.WaitDelay, which would
// cut a slow consumer's output after a normal exit. A copy into a pipe or
// FIFO given up ends then, as a Process's does (outputRelays): nothing
// of the ended command reaches the caller's pipe after cmd.Wait.
func (m *Manager) Wrap(ctx context.Context, cmd *exec.Cmd, opts ...Option) (cleanup func(), err error) {
	if cmd == nil || cmd.Path == "" {
		return nil, ErrNilCommand
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Process != nil {
		return nil, configErr("Wrap", "command already started")
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseTerminal("Wrap"); err != nil {
		return nil, err
	}
	origStdin, origStdout, origStderr := cmd.Stdin, cmd.Stdout, cmd.Stderr
	abandon := make(chan struct{})
	stdin, relays, err := wrapStreams(cmd, abandon)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			stdin.finish()
			relays.close()
			cmd.Stdin, cmd.Stdout, cmd.Stderr = origStdin, origStdout, origStderr
		}
	}()
	// Giving the output's copies up ends their writes into the caller's
	// pipes too, as Process.abandonOutputs does, and first: a write into
	// a relay that is still going on when boundedWriter gives up would
	// reach the caller's pipe after cmd.Wait returned.
	release := sync.OnceFunc(func() {
		relays.abandon()
		close(abandon)
	})
	if err := checkProcAttr("Wrap", cmd); err != nil {
		return nil, err
	}
	if err := refuseExtraFiles("Wrap", cmd); err != nil {
		return nil, err
	}
	m.mu.RLock()
	closed, cfg := m.closed, m.cfg
	m.mu.RUnlock()
	if closed {
		return nil, ErrManagerClosed
	}
	args := argvTail(cmd)
	if _, err := m.classify(ctx, cfg, o, argvString(cmd.Path, args), func(c Classifier) ClassifyResult { return c.ClassifyArgs(cmd.Path, args) }); err != nil {
		return nil, err
	}
	if err := o.takeCmdDir("Wrap", cmd); err != nil {
		return nil, err
	}
	if cmd.Dir == "" {
		dir, err := workingDir(o)
		if err != nil {
			return nil, err
		}
		cmd.Dir = dir
	}
	res := new(resolver) // one per call: the lists share their parents' lookups
	if err := checkWorkingDir(cmd.Dir, cfg, o, res); err != nil {
		return nil, err
	}
	c, err := m.enter()
	if err != nil {
		return nil, err
	}
	defer c.leave()
	spec, egr, before, err := m.spec(cfg, o, cmd.Dir, res)
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = sandboxEnv(hostEnv(), o.env)
	} else {
		cmd.Env = mergeEnv(cmd.Env, o.env)
	}
	if egr != nil {
		cmd.Env = mergeEnv(cmd.Env, append(proxyEnv(), egr.env...))
	}
	h, err := m.rt.Prepare(spec, cmd)
	if err != nil {
		egr.close()
		before.end()
		return nil, wrapSandboxErr(err)
	}
	if cancel := cmd.Cancel; cancel != nil {
		// exec.CommandContext's Cancel kills cmd.Process, the sandbox's
		// init, which may die before it has ended the tree (the reduced
		// tier has no pid namespace to end it with): the tree is ended
		// first, as ctx ends it; the caller's Cancel runs if that
		// fails. Found by red-team round 51.
		cmd.Cancel = func() error {
			if err := h.Kill(); err == nil {
				if w, ok := h.(exitAwaiter); ok {
					w.AwaitExit(5 * time.Second)
				}
				return nil
			}
			return cancel()
		}
	}
	var shared sharedFiles
	for _, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := s.(*os.File); ok {
			shared.add(f)
		}
	}
	wh := &wrapped{h: h, egr: egr, release: release}
	switch m.track(wh, c) {
	case trackClosed:
		h.Close()
		egr.close()
		before.end()
		return nil, ErrManagerClosed
	case trackCleaned:
		// Cleanup ran while it was prepared: the spec is taken back, and
		// its init, once the caller starts cmd, runs nothing (exit 125).
		_ = h.Kill()
	}
	stop := make(chan struct{})
	go m.watch(ctx, h, o.timeout, stop, release)
	return sync.OnceFunc(func() {
		close(stop)
		release()
		// A cleanup while the command still runs ends it first: what
		// follows releases what confines it (its protected names, its
		// proxy, the Manager's hold on it).
		_ = h.Kill()
		if w, ok := h.(exitAwaiter); ok {
			w.AwaitExit(5 * time.Second)
		}
		m.restoreShared(&shared)
		stdin.finish() // the caller's file offset past what the command read
		relays.close() // os/exec's copies into them ended with cmd.Wait or with release
		m.untrack(wh)
		h.Close()
		egr.close()
		before.end()
		m.warnDegraded(h.Degraded())
		for _, v := range before.sweep(fixedNames(h)) {
			m.log().Warn("disabled what the command planted", "rule", v.Rule, "detail", v.Detail)
		}
	}), nil
}

// wrapped is a wrapped cmd's sandbox as the Manager tracks it.
type wrapped struct {
	h       sandbox.Handle
	egr     *egressRun
	release func() // gives the output's copies up (Wrap)
}

// Kill is Cleanup's and Close's: it ends the sandbox and, copyDrain
// later, gives the output's copies up as a timeout does (watch), so that
// the caller's cmd.Wait returns even when nothing reads its pipe.
func (w *wrapped) Kill() error {
	err := w.h.Kill()
	time.AfterFunc(copyDrain, w.release)
	return err
}

// reclaim is Cleanup's: once the killed sandbox can no longer run its
// program, it releases what it holds in the host's file tree and its
// proxy. The rest (the init's descriptors, its cgroup) is in the caller's
// cmd, which the caller may be starting: its cleanup releases that.
func (w *wrapped) reclaim(ctx context.Context) {
	if r, ok := w.h.(endedReleaser); ok && r.ReleaseEnded(ctx) {
		w.egr.close()
	}
}

// endedReleaser is a handle that can release what it holds in the host's
// file tree once killed (sandbox/linux's).
type endedReleaser interface {
	ReleaseEnded(ctx context.Context) bool
}

// exitAwaiter is a handle that can wait for its init to exit
// (sandbox/linux's).
type exitAwaiter interface{ AwaitExit(time.Duration) }

// takeCmdDir makes a cmd.Dir the caller named the call's working
// directory, checked as WithWorkingDir's is (a link a sandbox planted on
// the way is refused); one that differs from WithWorkingDir's is refused.
// A relative cmd.Dir is taken from the caller's working directory, as
// os/exec does, not from the sandbox's root: cmd.Dir becomes that
// absolute path.
func (o *callOptions) takeCmdDir(api string, cmd *exec.Cmd) error {
	if cmd.Dir == "" {
		return nil
	}
	dir, err := filepath.Abs(cmd.Dir)
	if err != nil {
		return configErr(api, "cmd.Dir %s: %v", cmd.Dir, err)
	}
	cmd.Dir = dir
	switch {
	case o.dir == "":
		if err := checkPaths(api+": cmd.Dir", []string{dir}); err != nil {
			return err
		}
		o.dir = dir
	case filepath.Clean(o.dir) != dir:
		return configErr(api, "cmd.Dir (%s) and WithWorkingDir (%s) name different directories; set one of them", cmd.Dir, o.dir)
	}
	return nil
}

// refuseExtraFiles refuses a cmd that hands its program more descriptors
// (cmd.ExtraFiles): the sandbox's init closes every descriptor it inherits
// beyond the standard streams, so they would be dropped without a word.
func refuseExtraFiles(api string, cmd *exec.Cmd) error {
	if len(cmd.ExtraFiles) > 0 {
		return configErr(api, "cmd.ExtraFiles cannot reach the sandboxed program (its init closes every descriptor but the standard streams); pass data on stdin or in a file of a writable root")
	}
	return nil
}

// watch kills a wrapped sandbox when ctx ends or its timeout passes, and
// copyDrain later gives up the copies of its output (release).
func (m *Manager) watch(ctx context.Context, h sandbox.Handle, timeout time.Duration, stop <-chan struct{}, release func()) {
	kill := func() {
		_ = h.Kill()
		time.AfterFunc(copyDrain, release)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			kill()
			return
		case <-readyChan(h):
		}
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-stop:
	case <-ctx.Done():
		kill()
	case <-expired:
		kill()
	}
}

// readyChan is closed once h reports ready (or failed).
func readyChan(h sandbox.Handle) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		_ = h.Ready(context.Background())
		close(c)
	}()
	return c
}
