package agentbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// Process is a sandboxed program started by Manager.Start.
type Process struct {
	m       *Manager
	p       sandbox.Process
	started time.Time
	timeout time.Duration
	ctx     context.Context
	copies  sync.WaitGroup // standard-stream copies between pipes and cmd's readers and writers
	relays  outputRelays   // the copies of the caller's files the output copies write (abandonOutputs)

	stdout, stderr *capBuffer  // set when Exec and ExecArgs capture
	egress         *egressRun  // nil unless the network is filtered
	before         *beforeRun  // what the writable roots held before the command
	shared         sharedFiles // the caller's files handed over as they are
	stdin          *stdinFile  // the caller's file or stream relayed as stdin
	readerCopy     func()      // stops the copy of a Stdin that is no file
	verdict        ClassifyResult

	// reclaimed is closed once Cleanup (or Close) killed the sandbox and
	// waits for its release: Wait gives up the output's copies copyDrain
	// after the exit, as after a timeout.
	reclaimed   chan struct{}
	reclaimOnce sync.Once

	// exited is closed once the program's tree has ended, exit then
	// holding how; guarded is why guard ended it, if it did.
	exited  chan struct{}
	exit    waited
	gmu     sync.Mutex
	guarded ending

	once   sync.Once
	result *ExecResult
	err    error
}

// Start starts the program cmd describes (Path, Args, Env, Dir, Stdin,
// Stdout, Stderr) in a sandbox and returns once it runs inside, or the
// sandbox could not be built. cmd itself is not started: it is the
// description. A nil cmd.Env becomes the allow-listed part of the caller's
// environment. ctx, and WithTimeout, kill the whole process tree when they
// end; a cmd made by exec.CommandContext is refused (its context is not
// Start's to see). Wait must be called, unless Manager.Cleanup or Close
// ended the program: they release it as Wait does.
func (m *Manager) Start(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Process, error) {
	if cmd == nil || cmd.Path == "" {
		return nil, ErrNilCommand
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = sandboxEnv(hostEnv(), o.env)
	} else {
		env = mergeEnv(env, o.env)
	}
	cfg := m.Config()
	args := argvTail(cmd)
	verdict, err := m.classify(ctx, cfg, o, argvString(cmd.Path, args), func(c Classifier) ClassifyResult { return c.ClassifyArgs(cmd.Path, args) })
	if err != nil {
		return nil, err
	}
	return m.startProcess(ctx, cfg, o, cmd, env, outcome{verdict: verdict})
}

// outcome is what a Process's result reports besides its run: set before
// the Process is tracked, since Cleanup or Close may Wait it at once.
type outcome struct {
	verdict        ClassifyResult
	stdout, stderr *capBuffer // Exec's capture of cmd's Stdout and Stderr
}

// argvTail is cmd's arguments after argv[0].
func argvTail(cmd *exec.Cmd) []string {
	if len(cmd.Args) > 1 {
		return cmd.Args[1:]
	}
	return nil
}

func (m *Manager) startProcess(ctx context.Context, cfg Config, o *callOptions, cmd *exec.Cmd, env []string, out outcome) (*Process, error) {
	if err := o.takeCmdDir("Start", cmd); err != nil {
		return nil, err
	}
	if err := checkProcAttr("Start", cmd); err != nil {
		return nil, err
	}
	if err := refuseExtraFiles("Start", cmd); err != nil {
		return nil, err
	}
	if cmd.Cancel != nil {
		// exec.CommandContext's context is os/exec's to watch, in
		// cmd.Start, which Start does not call: it would bound nothing.
		// Found by red-team round 51.
		return nil, configErr("Start", "cmd was made by exec.CommandContext, whose context Start cannot watch; make it with exec.Command and pass the context to Start")
	}
	dir := cmd.Dir
	if dir == "" {
		var err error
		if dir, err = workingDir(o); err != nil {
			return nil, err
		}
	}
	res := new(resolver) // one per call: the lists share their parents' lookups
	if err := checkWorkingDir(dir, cfg, o, res); err != nil {
		return nil, err
	}
	c, err := m.enter()
	if err != nil {
		return nil, err
	}
	defer c.leave()
	spec, egr, before, err := m.spec(cfg, o, dir, res)
	if err != nil {
		return nil, err
	}
	if egr != nil {
		env = mergeEnv(env, append(proxyEnv(), egr.env...))
	}
	pr := &Process{m: m, started: time.Now(), timeout: o.timeout, ctx: ctx, egress: egr, before: before, reclaimed: make(chan struct{}),
		verdict: out.verdict, stdout: out.stdout, stderr: out.stderr}
	prog := &sandbox.Program{Path: cmd.Path, Args: cmd.Args, Env: env, Dir: dir, Terminal: o.terminal, TerminalSize: o.terminalSize}
	var childEnds []*os.File
	closeChildEnds := func() {
		for _, f := range childEnds {
			f.Close()
		}
	}
	switch {
	case o.terminal:
		if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
			err = configErr("WithTerminal", "the program's terminal is its standard streams: leave the command's Stdin, Stdout and Stderr nil and use Process.Terminal")
		}
	default:
		if prog.Stdin, err = pr.input(cmd.Stdin, &childEnds); err == nil {
			if prog.Stdout, err = pr.output(cmd.Stdout, &childEnds); err == nil {
				if sameWriter(cmd.Stdout, cmd.Stderr) || sameStream(cmd.Stdout, cmd.Stderr) {
					// One pipe for both, as os/exec does: one goroutine
					// writes to the caller's writer, in the order written.
					prog.Stderr = prog.Stdout
				} else {
					prog.Stderr, err = pr.output(cmd.Stderr, &childEnds)
				}
			}
		}
	}
	if err != nil {
		closeChildEnds()
		pr.stopReader()
		pr.shared.restore()
		pr.stdin.finish()
		egr.close()
		before.end()
		return nil, err
	}
	p, err := m.rt.Start(ctx, spec, prog)
	closeChildEnds() // the init holds its own copies now
	if err != nil {
		pr.stopReader()
		pr.copies.Wait()
		pr.shared.restore()
		pr.stdin.finish()
		egr.close()
		before.end()
		return nil, wrapSandboxErr(err)
	}
	pr.p = p
	pr.exited = make(chan struct{})
	go func() {
		pr.exit.st, pr.exit.err = p.Wait()
		close(pr.exited)
	}()
	go pr.guard()
	switch m.track(pr, c) {
	case trackClosed:
		// Close stopped waiting for this call and will not end it: it
		// ends and is released now, as Close promises, and Wait reports
		// it killed (exit 137) like the others.
		_ = p.Kill()
		ctx, cancel := context.WithTimeout(context.Background(), closeReclaim)
		pr.reclaim(ctx)
		cancel()
	case trackCleaned:
		_ = p.Kill() // Cleanup ran while it was built; Wait reports it killed
	}
	m.warnDegraded(p.Degraded())
	return pr, nil
}

// warnDegraded logs that the warn fallback ran a command without a layer
// its policy needs.
func (m *Manager) warnDegraded(missing []string) {
	if len(missing) > 0 {
		m.log().Warn("the sandbox ran degraded (warn fallback): the policy is not fully enforced", "missing", missing)
	}
}

// restoreShared puts the state of the caller's files back as it was before
// the program started (see sharedFile), logs what the program changed, and
// reports what it had to leave as the program set it.
func (m *Manager) restoreShared(sf *sharedFiles) []Violation {
	restored, left := sf.restore()
	if len(restored) > 0 {
		m.log().Info("restored what the sandboxed program changed on the caller's terminal or files", "restored", restored)
	}
	var vs []Violation
	for _, what := range left {
		m.log().Warn("left what the sandboxed program changed on the caller's terminal: another job holds its foreground", "left", what)
		vs = append(vs, Violation{Kind: "terminal", Rule: "foreground-kept",
			Detail: "the command changed the terminal's " + strings.TrimPrefix(what, "terminal ") +
				"; left as they are, as another job holds the terminal (`stty sane` resets them)"})
	}
	return vs
}

// openByName lets the program open a pipe agentbox made for it by name, as
// tools do with /dev/stdout or /dev/stderr (a reopen through /proc/self/fd
// checks the pipe's owner and mode; a pipe belongs to its creator, and a
// sandbox started by root runs as nobody). Some open them read-write
// (curl -D /dev/stderr). Nothing but the program and agentbox's copy use
// these pipes.
func openByName(f *os.File) { _ = f.Chmod(0o666) }

// readableByName is openByName for a stdinFile's pipe, which the program
// may reopen to read only: what is written into it counts against what
// the program read of the caller's file.
func readableByName(f *os.File) { _ = f.Chmod(0o444) }

// input returns the file the program reads: r itself when it goes as it is
// (see streamKind), else a pipe fed from r.
func (pr *Process) input(r io.Reader, childEnds *[]*os.File) (*os.File, error) {
	if r == nil {
		return nil, nil
	}
	if f, ok := r.(*os.File); ok {
		kind, err := streamOf(f)
		if err != nil {
			return nil, configErr("a standard stream", "%v", err)
		}
		// A file or a pipe is relayed without taking from the caller
		// more than the program reads, a socket by a copy that stops with
		// the program (stdinFile); a device goes as it is.
		var s *stdinFile
		var rd *os.File
		switch kind {
		case streamFile:
			if s, rd, err = newStdinFile(f); errors.Is(err, errNotSeekable) {
				s, rd, err = newStdinStream(f) // a file of /proc or /sys
			}
		case streamPipe, streamFIFO:
			s, rd, err = newStdinPipe(f)
		case streamSocket:
			s, rd, err = newStdinStream(f)
		default:
			pr.shared.add(f)
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		if s.stream {
			openByName(rd)
		} else {
			readableByName(rd)
		}
		pr.stdin = s
		*childEnds = append(*childEnds, rd)
		return rd, nil
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	openByName(rd)
	*childEnds = append(*childEnds, rd)
	pr.readerCopy = copyReader(wr, r)
	return rd, nil
}

// output returns the file the program writes: w itself when it goes as it
// is (see relayed), else a pipe drained into w (through an offsetWriter
// when w's open file description is also the program's stdin).
func (pr *Process) output(w io.Writer, childEnds *[]*os.File) (*os.File, error) {
	if w == nil {
		return nil, nil
	}
	var rl *relay
	if f, ok := w.(*os.File); ok {
		kind, err := streamOf(f)
		if err != nil {
			return nil, configErr("a standard stream", "%v", err)
		}
		if rl, err = relayed(f, kind); err != nil {
			return nil, err
		}
		if rl == nil {
			pr.shared.add(f)
			return f, nil
		}
		w = rl
		pr.relays = append(pr.relays, rl)
		if pr.stdin.sharesWith(f) {
			w = &offsetWriter{f: rl.f, s: pr.stdin}
		}
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		rl.close()
		return nil, err
	}
	openByName(wr)
	*childEnds = append(*childEnds, wr)
	pr.copies.Add(1)
	go func() {
		defer pr.copies.Done()
		_, _ = io.Copy(w, rd)
		rd.Close()
		rl.close()
	}()
	return wr, nil
}

// sameWriter reports whether a and b are one writer, compared as os/exec
// does: with ==, where their dynamic type allows it.
func sameWriter(a, b io.Writer) (same bool) {
	if a == nil || b == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false // not comparable
		}
	}()
	return a == b
}

// Pid is the host pid of the sandbox's init (pid 1 inside).
func (p *Process) Pid() int { return p.p.Pid() }

// Layers lists the isolation layers applied.
func (p *Process) Layers() []string { return p.p.Layers() }

// Terminal returns the master side of the program's terminal (see
// WithTerminal), nil without one or once taken: the caller owns and closes
// it. Reads from it fail with EIO once no process of the sandbox holds the
// terminal, after the program and everything it started have ended.
func (p *Process) Terminal() *os.File { return p.p.Terminal() }

// Degraded lists the layers of Layers that say the policy was not fully
// enforced (see ExecResult.Degraded).
func (p *Process) Degraded() []string { return p.p.Degraded() }

// Started returns when the program was started inside its sandbox, after
// the sandbox was built; the caller's clock.
func (p *Process) Started() time.Time { return p.p.Started() }

// Signal sends sig to the program's process group inside the sandbox
// (SIGSTOP and SIGCONT pause and resume it; SIGKILL ends the sandbox, as
// Kill does).
func (p *Process) Signal(sig os.Signal) error { return p.p.Signal(sig) }

// Kill ends the sandbox's whole process tree at once.
func (p *Process) Kill() error { return p.p.Kill() }

// Wait waits for the program to end and for its output to reach the
// caller's writers, and releases the sandbox. It runs once: a Wait after
// (or while) Manager.Cleanup or Close released the Process returns the
// same result, the program killed (exit 137), without an error of its
// own; the output's copies got copyDrain after the kill then. A timeout returns the result
// (exit 137) with ErrTimeout; an ended ctx returns it with ctx.Err(). Both
// still bound Wait after the program exited by itself while a copy of its
// output is blocked on a writer: the copy is given up copyDrain later and
// Wait returns ErrTimeout (TimedOut set) or ctx.Err(), with the program's
// own exit code.
func (p *Process) Wait() (*ExecResult, error) {
	p.once.Do(func() { p.result, p.err = p.wait() })
	return p.result, p.err
}

// waited is how the program's tree ended.
type waited struct {
	st  sandbox.ExitStatus
	err error
}

// guard ends the program when its timeout passes or its ctx ends, whether
// or not the caller is in Wait yet: a caller that reads the program's
// output to its end before it calls Wait, as os/exec's callers do, left a
// program past its timeout running (red-team round 55).
func (p *Process) guard() {
	expired, stop := p.deadline()
	defer stop()
	var e ending
	select {
	case <-p.exited:
		return
	case <-expired:
		e.timedOut = true
	case <-p.ctx.Done():
		e.ctxErr = p.ctx.Err()
	}
	p.gmu.Lock()
	p.guarded = e
	p.gmu.Unlock()
	_ = p.p.Kill()
}

// deadline returns a channel that fires when the timeout passes (nil
// without one) and what stops its timer.
func (p *Process) deadline() (<-chan time.Time, func()) {
	if p.timeout <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(p.timeout - time.Since(p.started))
	return t.C, func() { t.Stop() }
}

func (p *Process) wait() (*ExecResult, error) {
	defer p.egress.close()
	defer p.release()
	expired, stop := p.deadline()
	defer stop()
	var e ending
	select {
	case <-p.exited:
	case <-expired:
		e.timedOut = true
		_ = p.p.Kill()
		<-p.exited
	case <-p.ctx.Done():
		e.ctxErr = p.ctx.Err()
		_ = p.p.Kill()
		<-p.exited
	case <-p.reclaimed: // killed by Cleanup: its status says so
		<-p.exited
	}
	if !e.cut() {
		p.gmu.Lock()
		e = p.guarded // ended by guard before Wait
		p.gmu.Unlock()
	}
	w := p.exit
	killed := e.cut() // exit 137; one that exited by itself keeps its code, its output cut or not
	// The whole tree is gone: nothing can change the caller's files again.
	leftShared := p.m.restoreShared(&p.shared)
	p.stopReader() // nothing more is read from the caller's reader
	p.awaitCopies(expired, &e)
	timedOut, ctxErr := e.timedOut, e.ctxErr
	// After the output's copies: one into the file that is also stdin
	// (offsetWriter) moves where the caller's offset goes.
	p.stdin.finish() // the caller's file or pipe past what the program read
	p.egress.close() // and every decision about its connections
	res := &ExecResult{
		ExitCode:       w.st.Code,
		Duration:       time.Since(p.started),
		TimedOut:       timedOut,
		Sandboxed:      true,
		Layers:         p.p.Layers(),
		Degraded:       p.p.Degraded(),
		Violations:     p.egress.takeViolations(),
		Classification: p.verdict,
	}
	p.before.end()
	res.Violations = append(res.Violations, p.before.sweep(fixedNames(p.p))...)
	res.Violations = append(res.Violations, leftShared...)
	if w.st.MemoryLimitHit {
		res.Violations = append(res.Violations, Violation{Kind: "memory", Detail: "the memory limit was exceeded; the kernel killed a process", Rule: "max_memory"})
	}
	if w.st.Stopped != "" {
		res.Violations = append(res.Violations, Violation{Kind: "filesystem", Detail: w.st.Stopped, Rule: "mount-detached"})
	}
	if p.stdout != nil {
		res.Stdout, res.Stderr = p.stdout.String(), p.stderr.String()
		res.Truncated = p.stdout.truncated || p.stderr.truncated
	}
	if killed {
		res.ExitCode = 128 + int(syscall.SIGKILL)
	}
	switch {
	case w.err != nil:
		return res, w.err
	case timedOut:
		return res, fmt.Errorf("%w after %v", ErrTimeout, p.timeout)
	case ctxErr != nil:
		return res, ctxErr
	}
	return res, nil
}

// release forgets the ended sandbox in the Manager and releases what it
// holds (placeholders, cgroup, temporary directory).
func (p *Process) release() {
	p.m.untrack(p)
	_ = p.p.Close()
}

// reclaim is Cleanup's: the sandbox was killed; Wait (once, whoever calls
// it first) releases it. It waits for that until ctx ends.
func (p *Process) reclaim(ctx context.Context) {
	p.reclaimOnce.Do(func() { close(p.reclaimed) })
	done := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// ending is why Wait stopped waiting: the timeout, ctx, or neither (the
// program ended by itself and its output is all in).
type ending struct {
	timedOut bool
	ctxErr   error
}

func (e ending) cut() bool { return e.timedOut || e.ctxErr != nil }

// awaitCopies waits for the copies of the program's output into the
// caller's writers. After a timeout or an ended ctx they get copyDrain.
// After a program that exited by itself they get all the time they need,
// a slow reader's included, but the timeout and ctx still count: a
// program can choose to exit with its output stuck in the copy (a full
// pipe into a socket whose peer does not read), and the caller's bound on
// the run must hold then too (as Wrap's watch does until cleanup). The
// copy given up ends when its writer takes the bytes or fails.
func (p *Process) awaitCopies(expired <-chan time.Time, e *ending) {
	if !e.cut() {
		done := make(chan struct{})
		go func() {
			p.copies.Wait()
			close(done)
		}()
		select {
		case <-done:
			return // every byte the program wrote is in
		case <-expired:
			e.timedOut = true
		case <-p.ctx.Done():
			e.ctxErr = p.ctx.Err()
		case <-p.reclaimed: // Cleanup waits for the release
		}
	}
	if !waitAtMost(&p.copies, copyDrain) {
		p.abandonOutputs()
	}
}

// abandonOutputs ends the copies of the program's output still blocked
// on the caller's writers once Wait has given them up (see
// outputRelays.abandon): the copy closes its descriptors and ends.
func (p *Process) abandonOutputs() { p.relays.abandon() }

// copyDrain is how long Wait waits, after a timeout or a cancelled ctx,
// for the program's output to reach the caller's writers. A variable only
// so that the package's tests, which give many stuck copies up, can
// shorten it (copydrain_test.go); nothing else sets it.
var copyDrain = 2 * time.Second

// waitAtMost waits for wg, for d at most, and reports whether wg was
// done.
func waitAtMost(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// stopReader stops the copy of a Stdin that is no file (copyReader).
func (p *Process) stopReader() {
	if p.readerCopy != nil {
		p.readerCopy()
	}
}

// copyReader copies r, a Stdin that is no file, into the program's pipe
// wr, and returns what stops the copy once the program's tree is gone, as
// os/exec's Wait does: a reader with a read deadline (a net.Conn, an
// os.Pipe) is interrupted and given its deadline back, so that nothing
// the caller's reader delivers after Wait is taken (what the copy read
// and the program did not, a pipe's worth at most, is lost); the copy of
// another reader ends when its next Read returns.
func copyReader(wr *os.File, r io.Reader) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(wr, r)
		wr.Close()
	}()
	return func() {
		d, ok := r.(interface{ SetReadDeadline(time.Time) error })
		if !ok {
			return
		}
		select {
		case <-done:
			return
		default:
		}
		if d.SetReadDeadline(time.Now()) != nil {
			return
		}
		t := time.NewTimer(copyDrain)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
		_ = d.SetReadDeadline(time.Time{})
	}
}
