package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/keptfiles"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
)

// DefaultGrace is how long an agent may take to exit after a forwarded
// SIGINT, SIGTERM, SIGHUP or SIGQUIT before its whole tree is killed.
const DefaultGrace = 10 * time.Second

// ErrNoProgram: Start was given no program to run.
var ErrNoProgram = errors.New("supervise: no program to run")

// ErrAuditLogPlacement: the audit log would be inside a writable root, where
// the agent could rewrite its own record. The CLI exits 125.
var ErrAuditLogPlacement = errors.New("audit log inside a writable root")

// NoticeKind classifies a Notice.
type NoticeKind int

// Notice kinds.
const (
	// NoticeWarning: something the operator should know, e.g. limits the
	// manifest declares that are not enforced yet.
	NoticeWarning NoticeKind = iota
	// NoticeKilling: agentbox is killing the agent; Text says why.
	NoticeKilling
	// NoticeKilled: the agent was killed from outside (the kill switch, or
	// the kernel's OOM killer); Text says by what.
	NoticeKilled
	// NoticeAlert: an event named in audit.alert_on happened.
	NoticeAlert
)

// Notice is one line for the operator; the CLI prints it on stderr.
type Notice struct {
	Kind NoticeKind
	Text string
}

// Cause says why agentbox killed an agent.
type Cause string

// Kill causes.
const (
	CauseDuration   Cause = "max_duration"  // limits.max_duration
	CauseMemory     Cause = "max_memory_mb" // limits.max_memory_mb
	CauseKillSwitch Cause = "kill_switch"   // `agentbox kill` (Registry.Kill)
	CauseGrace      Cause = "grace"         // still running a grace period after SIGINT/SIGTERM/SIGHUP/SIGQUIT
	CauseInterrupt  Cause = "interrupt"     // a second SIGINT/SIGTERM/SIGHUP/SIGQUIT
	CauseKill       Cause = "kill"          // Agent.Kill or the Start context ended
)

// KillInfo says how agentbox ended an agent.
type KillInfo struct {
	Cause  Cause  `json:"cause"`
	Reason string `json:"reason"`
	// At is when the kill was sent (for the kill switch: when it was asked).
	At time.Time `json:"at"`
	// Due is when the limit fell due (duration limit only).
	Due time.Time `json:"due,omitzero"`
	// By is the kill switch's marker: who asked and when.
	By *KillMarker `json:"by,omitempty"`
}

// Result is how an agent's run ended.
type Result struct {
	ID   string
	Name string
	// ExitCode follows DESIGN.md: the program's own status, 128+N for
	// signal N, 137 when agentbox killed it (Killed says why).
	ExitCode int
	// Started is when the program was running in its sandbox; Duration
	// runs from there to its end (to the SIGKILL when agentbox killed it:
	// nothing of it ran after that). Limits count from Started too.
	Started  time.Time
	Duration time.Duration
	Killed   *KillInfo
	Layers   []string
	Memory   string // MemoryCgroup or MemoryMonitor
	// MemoryPeak is the largest resident total the monitor saw (monitor only).
	MemoryPeak int64
	AuditLog   string // "" when audit.log_level is off
	// AuditErr is a failure to write the audit log; the run itself ended as
	// the other fields say.
	AuditErr error
}

// Options configure Start.
type Options struct {
	// Credentials give the values of the manifest's credentials (an open
	// vault); required when the manifest declares any.
	Credentials agentbox.CredentialProvider
	// Secrets are files the agent must not read whatever its manifest
	// says: where the credentials come from (the vault file, its
	// passphrase file).
	Secrets []string
	// Program and Args are what runs inside the sandbox (Program is looked
	// up in the sandbox's PATH unless it holds a slash).
	Program string
	Args    []string
	// Standard streams; *os.File values are handed over as they are, so a
	// terminal stays a terminal.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Terminal gives the agent a terminal of its own instead (see
	// agentbox.WithTerminal); the streams must be nil, and Agent.Terminal
	// returns its master. TerminalSize is its window size when the agent
	// starts (rows, columns; zero: the kernel's default).
	Terminal     bool
	TerminalSize [2]uint16
	// Dir is the working directory (default: the caller's).
	Dir string
	// Env adds KEY=VALUE variables to the allow-listed environment.
	Env []string
	// Grace is how long a forwarded SIGINT/SIGTERM/SIGHUP/SIGQUIT gives the
	// agent before its tree is killed; 0 means DefaultGrace.
	Grace time.Duration
	// Registry records the agent; nil means OpenRegistry("").
	Registry *Registry
	// SampleInterval is the memory monitor's period; 0 means
	// DefaultSampleInterval.
	SampleInterval time.Duration
	// Notify receives the lines meant for the operator; nil drops them.
	// It is called from several goroutines and must not block for long.
	Notify func(Notice)
	// Logger receives supervise's and the library's own records; nil
	// discards them.
	Logger *slog.Logger
	// Approved runs a program the classifier escalates without asking
	// (forbidden programs stay refused); otherwise Approval is asked, and
	// without it an escalated program is refused.
	Approved bool
	Approval agentbox.ApprovalCallback
}

// Agent is one agent running from a manifest.
type Agent struct {
	m       *policy.Manifest
	opts    Options
	reg     *Registry
	mgr     *agentbox.Manager
	proc    *agentbox.Process
	rec     *recorder
	record  Record
	logPath string
	// madeDirs are the directories made for the audit log, removed
	// again if the run is refused before it starts.
	madeDirs paths.Made
	// memRoots are the writable places whose files are memory
	// (memoryRoots).
	memRoots []string
	started  time.Time
	mem      *memoryWatch
	timers   []*time.Timer
	notify   func(Notice)

	mu         sync.Mutex
	kill       *KillInfo
	graceTimer *time.Timer
	breached   bool

	waitOnce sync.Once
	result   *Result
	err      error
}

// Start runs opts.Program as the agent m declares: policy compiled into the
// library Config (Compile), audit log opened, limits armed, agent_start
// logged and the agent recorded in the registry. Wait must be called.
// ctx ending kills the agent.
func Start(ctx context.Context, m *policy.Manifest, opts Options) (*Agent, error) {
	if opts.Program == "" {
		return nil, ErrNoProgram
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Notify == nil {
		opts.Notify = func(Notice) {}
	}
	a, cfg, err := prepare(m, opts)
	if err != nil {
		return nil, err
	}
	if err := a.launch(ctx, cfg); err != nil {
		_ = a.rec.close()
		return nil, err
	}
	if un := Unenforced(m); len(un) > 0 {
		a.notify(Notice{Kind: NoticeWarning, Text: "not enforced yet: " + strings.Join(un, ", ") + " (carried into the run and logged)"})
	}
	return a, nil
}

// prepare compiles the manifest, picks the agent's ID and opens its audit
// log.
func prepare(m *policy.Manifest, opts Options) (_ *Agent, _ agentbox.Config, err error) {
	resolved, err := m.Resolve()
	if err != nil {
		return nil, agentbox.Config{}, err
	}
	cfg, err := Compile(m, resolved, opts.Credentials)
	if err != nil {
		return nil, cfg, err
	}
	reg := opts.Registry
	if reg == nil {
		if reg, err = OpenRegistry(""); err != nil {
			return nil, cfg, err
		}
	}
	id, err := reg.reserveID()
	if err != nil {
		return nil, cfg, err
	}
	a := &Agent{m: m, opts: opts, reg: reg, notify: opts.Notify}
	// The audit log's directories made for a run that is then refused
	// are taken away again (those still empty).
	defer func() {
		if err != nil {
			a.madeDirs.Remove()
		}
	}()
	// Writable places in memory the monitor could not count: refused
	// before the agent runs where no cgroup is expected (checked again
	// once the sandbox says which mechanism it got).
	a.memRoots = memoryRoots(cfg.Filesystem.WritableRoots)
	expected := MemoryMonitor
	if strings.HasPrefix(agentbox.MemoryMechanism(), MemoryCgroup) {
		expected = MemoryCgroup
	}
	if _, err := memoryRootsCheck(a.memRoots, expected, m.Limits.MaxMemoryBytes() > 0); err != nil {
		return nil, cfg, err
	}
	a.record = Record{ID: id, Name: m.Name, Manifest: manifestPath(m), Pid: os.Getpid(),
		Runtime: string(policy.RuntimeNative), Limits: limitsOf(m)}
	if a.logPath, err = auditLogPath(m, reg); err != nil {
		return nil, cfg, err
	}
	if err := a.protectAuditLog(&cfg, resolved); err != nil {
		return nil, cfg, err
	}
	// The manifest states what the agent may do: an agent that may write
	// beside it must not widen its own next run. The file is protected
	// where it is, past any symbolic link it was named through: the
	// sandbox cannot mount over a link, and the link is not what is read.
	if mf := manifestPath(m); filepath.IsAbs(mf) {
		real, err := policy.ResolvePath(mf)
		if err != nil {
			real = mf
		}
		if link, root := replaceableLink(mf, resolved.Write, resolvedAll(cfg.Filesystem.DenyWrite)); link != "" {
			return nil, cfg, &ManifestLinkError{Manifest: mf, Link: link, Root: root, Real: real}
		}
		cfg.Filesystem.DenyWrite = appendUnique(cfg.Filesystem.DenyWrite, real)
	}
	for _, f := range opts.Secrets {
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		if link, root := replaceableLink(abs, resolved.Write, resolvedAll(cfg.Filesystem.DenyWrite)); link != "" {
			real, err := policy.ResolvePath(abs)
			if err != nil {
				real = abs
			}
			return nil, cfg, &SecretLinkError{File: abs, Link: link, Root: root, Real: real}
		}
		cfg.Filesystem.DenyRead = appendUnique(cfg.Filesystem.DenyRead, abs)
	}
	// And from every other sandbox of this user, this run's and later
	// ones: another agent's run, a plain exec (keptfiles).
	if err := keptfiles.Record(keptfiles.Secret, opts.Secrets...); err != nil {
		opts.Logger.Warn("the vault and passphrase files are kept from this run's agent only", "error", err)
	}
	kept := map[string]string{} // file: what it is, for refuseRunningWriters
	if mf := manifestPath(m); filepath.IsAbs(mf) {
		if err := keptfiles.Record(keptfiles.Policy, mf); err != nil {
			opts.Logger.Warn("the manifest is kept read-only for this run only", "error", err)
		}
		kept[mf] = "the manifest"
	}
	if m.Audit.LogLevel != policy.LogOff {
		// And no other sandbox of this user appends a forged entry,
		// chained as the log's own are, which this run would sign.
		if err := keptfiles.Record(keptfiles.Log, a.logPath); err != nil {
			opts.Logger.Warn("the audit log is kept from this run's agent only", "error", err)
		}
		kept[a.logPath] = "the audit log"
	}
	// The record reaches the sandboxes that start from now on; one
	// running already keeps what its roots gave it.
	if err := refuseRunningWriters(kept); err != nil {
		return nil, cfg, err
	}
	var log *audit.Log
	if m.Audit.LogLevel != policy.LogOff {
		if log, err = audit.Open(a.logPath, audit.Options{StateDir: reg.StateDir, Logger: opts.Logger}); err != nil {
			if errors.Is(err, audit.ErrLogShrunk) {
				return nil, cfg, err // names the log and what to do
			}
			return nil, cfg, fmt.Errorf("audit log: %w", err)
		}
		// A log rotated beside it since the deny list was made is denied
		// too: the open log now holds the writers' lock, which a rotation
		// waits for, so none can come before the run ends.
		if logPath, err := policy.ResolvePath(a.logPath); err == nil {
			cfg.Filesystem.DenyRead = pruneNested(appendUnique(cfg.Filesystem.DenyRead, auditLogFiles(logPath)...))
		}
	} else {
		a.logPath = ""
	}
	a.record.AuditLog = a.logPath
	a.rec = newRecorder(log, m, id, opts.Notify, opts.Logger)
	cfg.Network.OnDecision = a.rec.network
	cfg.ApprovalCallback = opts.Approval
	cfg.Logger = opts.Logger
	return a, cfg, nil
}

// launch starts the program in its sandbox, arms the limits, logs
// agent_start and registers the agent.
func (a *Agent) launch(ctx context.Context, cfg agentbox.Config) (err error) {
	if a.mgr, err = agentbox.NewManager(cfg); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			a.mgr.Close()
		}
	}()
	opts := a.opts
	callOpts := []agentbox.Option{agentbox.WithEnv(append([]string{"AGENTBOX_AGENT_ID=" + a.record.ID, "AGENTBOX_AGENT_NAME=" + a.m.Name}, opts.Env...)...)}
	if opts.Approved {
		callOpts = append(callOpts, agentbox.WithApproved())
	}
	switch {
	case opts.Terminal && opts.TerminalSize[0] > 0 && opts.TerminalSize[1] > 0:
		callOpts = append(callOpts, agentbox.WithTerminalSize(opts.TerminalSize[0], opts.TerminalSize[1]))
	case opts.Terminal:
		callOpts = append(callOpts, agentbox.WithTerminal())
	}
	if opts.Dir != "" {
		dir, err := filepath.Abs(opts.Dir)
		if err != nil {
			return err
		}
		callOpts = append(callOpts, agentbox.WithWorkingDir(dir))
	}
	cmd := &exec.Cmd{Path: opts.Program, Args: append([]string{opts.Program}, opts.Args...),
		Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr}
	if a.proc, err = a.mgr.Start(ctx, cmd, callOpts...); err != nil {
		a.rec.started(a.refusal(err))
		return err
	}
	// The program runs: its duration counts from when the init started
	// it, not from before the sandbox was built nor from when Start saw it
	// run (a moment later, longer on a loaded machine).
	if a.started = a.proc.Started(); a.started.IsZero() {
		a.started = time.Now()
	}
	a.armDuration()
	a.record.Memory = memoryMechanism(a.proc.Layers())
	warning, err := memoryRootsCheck(a.memRoots, a.record.Memory, a.m.Limits.MaxMemoryBytes() > 0)
	ended := false
	if err == nil {
		ended, err = a.identify()
	}
	if err != nil {
		a.stopTimers()
		_ = a.proc.Kill()
		_, _ = a.proc.Wait()
		a.rec.started(a.startEvent(false, err.Error()))
		return err
	}
	// agent_start is on disk before the agent is listed anywhere.
	a.rec.started(a.startEvent(true, "started"))
	if warning != "" {
		a.notify(Notice{Kind: NoticeWarning, Text: warning})
	}
	a.mem, err = startMemoryWatch(a.record.Memory, a.proc.Pid(), cfg.ResourceLimits.MaxMemoryBytes, opts.SampleInterval, func(reason string) {
		a.breach(CauseMemory, "limits.max_memory_mb", reason, time.Time{})
	})
	if err == nil && !ended {
		err = a.reg.Register(a.record)
	}
	if err != nil {
		// Logged as a kill: agent_start is in the log already. Wait closes
		// the Manager and the log.
		a.killNow(CauseKill, err.Error())
		_, _ = a.Wait()
		return err
	}
	return nil
}

// identify fills the record with both processes' start times. ended is
// set when the agent is gone already (a program that ran for an instant).
func (a *Agent) identify() (ended bool, err error) {
	if a.record.PidStart, err = procStartTime(a.record.Pid); err != nil {
		return false, fmt.Errorf("registry: %w", err)
	}
	a.record.InitPid = a.proc.Pid()
	a.record.Started = a.started.UTC()
	a.record.InitStart, err = procStartTime(a.record.InitPid)
	if errors.Is(err, ErrGone) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("registry: %w", err)
	}
	return false, nil
}

// armDuration starts the duration limit's timer (and the 80% alert).
func (a *Agent) armDuration() {
	d := a.m.Limits.MaxDuration
	if d <= 0 {
		return
	}
	due := a.started.Add(d)
	// The 80% alert comes before the breach in the log whichever timer's
	// goroutine runs first: on a loaded machine the earlier timer's can be
	// scheduled after the later one's, and the breach then sends the alert
	// (its moment has passed) before its own events.
	var budget80 func()
	if a.rec.alertOn["duration_budget_80pct"] {
		budget80 = sync.OnceFunc(func() {
			a.rec.alert("duration_budget_80pct", fmt.Sprintf("80%% of limits.max_duration (%s) has passed", policy.FormatDuration(d)), false)
		})
	}
	t := time.AfterFunc(time.Until(due), func() {
		if budget80 != nil {
			budget80()
		}
		a.breach(CauseDuration, "limits.max_duration", "duration limit exceeded: "+policy.FormatDuration(d), due)
	})
	a.mu.Lock()
	a.timers = append(a.timers, t)
	if budget80 != nil {
		a.timers = append(a.timers, time.AfterFunc(time.Until(a.started.Add(d*8/10)), budget80))
	}
	a.mu.Unlock()
}

func (a *Agent) stopTimers() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.timers {
		t.Stop()
	}
	if a.graceTimer != nil {
		a.graceTimer.Stop()
	}
}

// setKill records the first cause of a kill; later ones lose.
func (a *Agent) setKill(k *KillInfo) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.kill != nil {
		return false
	}
	a.kill = k
	return true
}

// breach kills the tree for a limit, then tells the operator and the log.
func (a *Agent) breach(cause Cause, rule, reason string, due time.Time) {
	k := &KillInfo{Cause: cause, Reason: reason, At: time.Now(), Due: due}
	if !a.setKill(k) {
		return
	}
	_ = a.proc.Kill()
	a.mu.Lock()
	a.breached = true
	a.mu.Unlock()
	// The record first: printing the notice may fail, or take long.
	a.rec.emitAnnounced(audit.Event{EventType: audit.LimitBreached, Allowed: false, Resource: string(cause), Rule: rule, Reason: reason,
		Details: a.limitDetails(cause, due)}, false)
	a.notify(Notice{Kind: NoticeKilling, Text: reason})
}

func (a *Agent) limitDetails(cause Cause, due time.Time) map[string]any {
	d := map[string]any{}
	switch cause {
	case CauseDuration:
		d["limit"] = policy.FormatDuration(a.m.Limits.MaxDuration)
		d["due"] = due.UTC()
	case CauseMemory:
		d["limit_bytes"] = a.mgr.Config().ResourceLimits.MaxMemoryBytes
		d["mechanism"] = a.record.Memory
	}
	return d
}

// killNow kills the tree for cause unless a kill is under way already.
func (a *Agent) killNow(cause Cause, reason string) {
	if !a.setKill(&KillInfo{Cause: cause, Reason: reason, At: time.Now()}) {
		return
	}
	_ = a.proc.Kill()
	a.notify(Notice{Kind: NoticeKilling, Text: reason})
}

// ID is the agent's registry ID.
func (a *Agent) ID() string { return a.record.ID }

// Name is the manifest's name.
func (a *Agent) Name() string { return a.m.Name }

// Pid is the host pid of the sandbox's init.
func (a *Agent) Pid() int { return a.proc.Pid() }

// Record is the agent's registry record.
func (a *Agent) Record() Record { return a.record }

// Layers lists the isolation layers applied.
func (a *Agent) Layers() []string { return a.proc.Layers() }

// Terminal returns the master of the agent's own terminal (Options.
// Terminal), nil without one or once taken: the caller owns it.
func (a *Agent) Terminal() *os.File { return a.proc.Terminal() }

// MemoryMechanism is MemoryCgroup or MemoryMonitor.
func (a *Agent) MemoryMechanism() string { return a.record.Memory }

// MemoryLimit is the memory limit in bytes (the manifest's or the default).
func (a *Agent) MemoryLimit() int64 { return a.mgr.Config().ResourceLimits.MaxMemoryBytes }

// AuditLog is the audit log's path ("" when the level is off).
func (a *Agent) AuditLog() string { return a.logPath }

// Kill ends the agent's whole tree now; Wait reports CauseKill.
func (a *Agent) Kill(reason string) { a.killNow(CauseKill, reason) }

// Signal forwards sig to the agent's process group. A terminating signal
// (terminating) also starts the grace period, after which the whole tree is
// killed; a second one of them kills it at once.
func (a *Agent) Signal(sig os.Signal) error {
	if isTerminate(sig) {
		a.mu.Lock()
		first := a.graceTimer == nil
		if first {
			grace := a.opts.Grace
			a.graceTimer = time.AfterFunc(grace, func() {
				a.killNow(CauseGrace, fmt.Sprintf("still running %s after %s", policy.FormatDuration(grace), signalName(sig)))
			})
		}
		a.mu.Unlock()
		if !first {
			a.killNow(CauseInterrupt, "second "+signalName(sig))
			return nil
		}
	}
	return a.proc.Signal(sig)
}

// terminating are the signals that ask the agent to stop: every stop signal
// the CLI catches and relays (SIGQUIT, ^\, included), since an agent that
// ignores one must still be stoppable by it (grace, then a kill).
var terminating = map[os.Signal]bool{
	syscall.SIGINT: true, syscall.SIGTERM: true, syscall.SIGHUP: true, syscall.SIGQUIT: true,
}

func isTerminate(sig os.Signal) bool { return terminating[sig] }

func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if n := signalNames[s]; n != "" {
			return n
		}
	}
	return sig.String()
}

// Wait waits for the agent to end, logs agent_killed (when agentbox ended
// it) and agent_exit, closes the audit log (everything is on disk when Wait
// returns) and removes the agent from the registry.
func (a *Agent) Wait() (*Result, error) {
	a.waitOnce.Do(func() { a.result, a.err = a.wait() })
	return a.result, a.err
}

func (a *Agent) wait() (*Result, error) {
	res, werr := a.proc.Wait()
	ended := time.Now()
	a.stopTimers()
	a.mem.close()
	defer a.mgr.Close()
	defer func() { _ = a.reg.Remove(a.record.ID) }()
	if res == nil {
		_ = a.rec.close()
		return nil, werr
	}
	if werr != nil && (errors.Is(werr, context.Canceled) || errors.Is(werr, context.DeadlineExceeded)) {
		a.setKill(&KillInfo{Cause: CauseKill, Reason: "context ended: " + werr.Error(), At: time.Now()})
		werr = nil
	}
	out := &Result{ID: a.record.ID, Name: a.m.Name, ExitCode: res.ExitCode, Started: a.started, Duration: ended.Sub(a.started),
		Layers: res.Layers, Memory: a.record.Memory, MemoryPeak: a.mem.peakBytes(), AuditLog: a.logPath}
	a.mu.Lock()
	kill, breached := a.kill, a.breached
	a.mu.Unlock()
	const killed = 128 + int(syscall.SIGKILL)
	if kill == nil && memoryViolation(res) {
		// The kernel's OOM killer ended it before the watcher saw it.
		kill = &KillInfo{Cause: CauseMemory, Reason: fmt.Sprintf("memory limit exceeded: %s (the kernel's OOM killer ended a process)", mib(a.MemoryLimit())), At: time.Now()}
		a.rec.emitAnnounced(audit.Event{EventType: audit.LimitBreached, Allowed: false, Resource: string(CauseMemory),
			Rule: "limits.max_memory_mb", Reason: kill.Reason, Details: a.limitDetails(CauseMemory, time.Time{})}, true)
		a.notify(Notice{Kind: NoticeKilled, Text: kill.Reason})
		breached = true
	}
	if kill == nil && res.ExitCode == killed {
		if mk, err := a.reg.Marker(a.record.ID); err == nil && mk != nil {
			kill = &KillInfo{Cause: CauseKillSwitch, At: mk.Time, By: mk,
				Reason: fmt.Sprintf("kill switch: agentbox kill by uid %d (pid %d)", mk.ByUID, mk.ByPid)}
			a.notify(Notice{Kind: NoticeKilled, Text: kill.Reason})
		}
	}
	if kill != nil && res.ExitCode != killed && kill.Cause != CauseMemory {
		// The program ended on its own before the kill landed.
		kill = nil
	}
	if kill != nil {
		out.ExitCode, out.Killed = killed, kill
		if kill.At.After(a.started) && kill.At.Before(ended) && kill.By == nil {
			// Nothing of the agent ran after the SIGKILL; the kernel's
			// teardown of the tree is not the agent's time.
			out.Duration = kill.At.Sub(a.started)
		}
		d := map[string]any{"cause": string(kill.Cause), "limit_breached": breached}
		if kill.By != nil {
			d["by_pid"], d["by_uid"], d["requested"] = kill.By.ByPid, kill.By.ByUID, kill.By.Time
		}
		// Every kill has printed its 🛑 line already.
		a.rec.emitAnnounced(audit.Event{EventType: audit.AgentKilled, Allowed: false, Resource: a.m.Name,
			Rule: string(kill.Cause), Reason: kill.Reason, Details: d}, true)
	}
	d := map[string]any{"exit_code": out.ExitCode, "duration": out.Duration.String(), "duration_ms": out.Duration.Milliseconds()}
	if out.ExitCode > 128 && out.ExitCode < 128+65 {
		d["signal"] = signalName(syscall.Signal(out.ExitCode - 128))
	}
	if out.MemoryPeak > 0 {
		d["memory_peak_bytes"] = out.MemoryPeak
	}
	a.reportFilesystem(res.Violations)
	a.rec.flushNetwork() // every decision is in the log before agent_exit
	a.rec.emit(audit.Event{EventType: audit.AgentExit, Allowed: true, Resource: a.opts.Program,
		Reason: fmt.Sprintf("exited code %d in %s", out.ExitCode, FormatElapsed(out.Duration)), Details: d}, true)
	out.AuditErr = a.rec.close()
	return out, werr
}

// reportFilesystem logs each filesystem violation the sandbox reported as
// the program ended (an agent's configuration or a git repository it
// planted, renamed away; a protective mount detached, which ended the
// tree) as a filesystem_deny event, and tells the operator, as `agentbox
// exec` prints them: the sandbox undid the plant, but the attempt is what
// the operator audits.
func (a *Agent) reportFilesystem(vs []agentbox.Violation) {
	for _, v := range vs {
		if v.Kind != "filesystem" {
			continue
		}
		a.rec.emitAnnounced(audit.Event{EventType: audit.FilesystemDeny, Allowed: false, Resource: v.Path, Rule: v.Rule, Reason: v.Detail}, false)
		a.notify(Notice{Kind: NoticeWarning, Text: v.Rule + ": " + v.Detail})
	}
}

func memoryViolation(res *agentbox.ExecResult) bool {
	for _, v := range res.Violations {
		if v.Kind == "memory" {
			return true
		}
	}
	return false
}

func limitsOf(m *policy.Manifest) Limits {
	l := m.Limits
	return Limits{MaxDuration: l.MaxDuration, MaxMemoryMB: l.MaxMemoryMB, MaxTokens: l.MaxTokens,
		MaxRequests: l.MaxRequests, MaxToolCalls: l.MaxToolCalls}
}

// FormatElapsed formats a run's duration for people: "5.0s" under a minute,
// else rounded to a tenth of a second ("2m3.1s").
func FormatElapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(100 * time.Millisecond).String()
}
