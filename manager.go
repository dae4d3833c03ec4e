package agentbox

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/internal/keptfiles"
	"github.com/agentbox-dev/agentbox/internal/liveroots"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/internal/shquote"
	"github.com/agentbox-dev/agentbox/internal/staterecord"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// Manager runs commands under one Config. It is safe for concurrent use;
// Close it when done.
type Manager struct {
	mu      sync.RWMutex
	cfg     Config
	closed  bool           // Close began: no call starts a sandbox any more
	swept   bool           // Close collected the sandboxes to kill: track refuses
	calls   sync.WaitGroup // the calls past enter: Close waits for them
	rt      sandbox.Runtime
	logp    atomic.Pointer[slog.Logger] // UpdateConfig swaps it while calls log
	running map[tracked]struct{}
	// cleanups counts Cleanup's calls: a call that began before one and
	// tracks its sandbox after is ended too (see track).
	cleanups uint64

	guardOnce sync.Once
	guard     *egress.Guard // shared by the egress proxies of every command
	// injections is shared by them too: a credential one command's proxy
	// injected is masked by every later command's (red-team round 55), and
	// by every other agentbox process's, through its record in the state
	// directory (injectionMarks).
	injections egress.Injections
	// defaultDeny is DefaultDenyRead as a set, made once (see soughtLinks).
	defaultDenyOnce sync.Once
	defaultDeny     map[string]bool
	gitRepos        gitRepoCache
}

// NewManager validates cfg and returns a Manager for it.
func NewManager(cfg Config) (*Manager, error) {
	cfg = cfg.clone()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rt, err := nativeRuntime(cfg)
	if err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg, rt: rt, running: make(map[tracked]struct{})}
	if marks, ok := staterecord.OpenMarks(injectedRecord); ok {
		m.injections.Record = injectionMarks{marks}
	}
	lg := cfg.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	m.logp.Store(lg)
	if w, ok := rt.(warmer); ok {
		netns := cfg.Network.Mode != NetworkAllowed
		switch {
		case !cfg.ColdStart:
			w.Warm(netns)
		case cfg.WarmFirst:
			w.WarmFirst(netns)
		}
	}
	return m, nil
}

// log is the Manager's logger (Config.Logger, or one that discards).
func (m *Manager) log() *slog.Logger { return m.logp.Load() }

// UpdateConfig replaces the Config for the calls that start after it.
func (m *Manager) UpdateConfig(cfg Config) error {
	cfg = cfg.clone()
	if err := cfg.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrManagerClosed
	}
	m.cfg = cfg
	if cfg.Logger != nil {
		m.logp.Store(cfg.Logger)
	}
	return nil
}

// Config returns a copy of the current Config, sharing nothing with it.
func (m *Manager) Config() Config {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.cfg.clone()
}

// Exec runs command with the Config's shell (Shell -c command), sandboxed,
// and captures its output.
func (m *Manager) Exec(ctx context.Context, command string, opts ...Option) (*ExecResult, error) {
	if command == "" {
		return nil, ErrNilCommand
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseTerminal("Exec"); err != nil {
		return nil, err
	}
	cfg := m.Config()
	shell := firstNonEmpty(o.shell, cfg.Shell, DefaultShell)
	verdict, err := m.classify(ctx, cfg, o, command, func(c Classifier) ClassifyResult { return classifyIn(c, shell, command) })
	if err != nil {
		return nil, err
	}
	return m.run(ctx, cfg, o, shell, []string{shell, "-c", command}, verdict)
}

// classify judges a command and applies the verdict (see gate).
func (m *Manager) classify(ctx context.Context, cfg Config, o *callOptions, command string, judge func(Classifier) ClassifyResult) (ClassifyResult, error) {
	c, err := o.classifierFor(cfg)
	if err != nil {
		return ClassifyResult{}, err
	}
	verdict := judge(c)
	if err := m.gate(ctx, cfg, o, verdict, command); err != nil {
		m.log().Info("command refused", "command", command, "decision", verdict.Decision.String(), "rule", verdict.Rule)
		return verdict, err
	}
	return verdict, nil
}

// argvString is how an argv is shown in approvals and errors.
func argvString(name string, args []string) string {
	return shquote.Join(append([]string{name}, args...))
}

// ExecArgs runs the program name with args, sandboxed, without a shell, and
// captures its output. name is looked up in the sandbox's PATH.
func (m *Manager) ExecArgs(ctx context.Context, name string, args []string, opts ...Option) (*ExecResult, error) {
	if name == "" {
		return nil, ErrNilCommand
	}
	o, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseTerminal("ExecArgs"); err != nil {
		return nil, err
	}
	cfg := m.Config()
	verdict, err := m.classify(ctx, cfg, o, argvString(name, args), func(c Classifier) ClassifyResult { return c.ClassifyArgs(name, args) })
	if err != nil {
		return nil, err
	}
	return m.run(ctx, cfg, o, name, append([]string{name}, args...), verdict)
}

func (m *Manager) run(ctx context.Context, cfg Config, o *callOptions, path string, argv []string, verdict ClassifyResult) (*ExecResult, error) {
	maxOut := firstPositive(o.maxOutput, cfg.MaxOutputBytes, DefaultMaxOutputBytes)
	stdout, stderr := &capBuffer{max: maxOut}, &capBuffer{max: maxOut}
	cmd := &exec.Cmd{Path: path, Args: argv, Stdout: stdout, Stderr: stderr}
	p, err := m.startProcess(ctx, cfg, o, cmd, sandboxEnv(hostEnv(), o.env), outcome{verdict: verdict, stdout: stdout, stderr: stderr})
	if err != nil {
		return nil, err
	}
	return p.Wait()
}

// enter admits a call that starts a sandbox, until Close begins. Close
// waits for the calls admitted to leave before it collects the sandboxes
// to kill: one that passed enter as Close began is then tracked, and
// ended by Close like the others, rather than left to a caller's Wait.
func (m *Manager) enter() (c call, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return call{}, ErrManagerClosed
	}
	m.calls.Add(1) // closed is set under the write lock: no Add after Close's Wait
	return call{leave: m.calls.Done, cleanups: m.cleanups}, nil
}

// call is one call past enter: leave ends it; cleanups is how many
// Cleanups had run when it began.
type call struct {
	leave    func()
	cleanups uint64
}

// warmer is a runtime that can start a sandbox ahead of need: a spare
// kept ready for every command (Warm), or one for the first (WarmFirst).
type warmer interface {
	Warm(netns bool)
	WarmFirst(netns bool)
}

// wrapSandboxErr maps runtime errors onto the package's sentinels.
func wrapSandboxErr(err error) error {
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return &dependencyError{err}
	case errors.Is(err, sandbox.ErrClosed):
		// Only Close closes the runtime: the call raced with it.
		return ErrManagerClosed
	}
	return err
}

// dependencyError is a runtime's ErrUnavailable as the package's
// ErrDependencyMissing, with one message.
type dependencyError struct{ err error }

func (e *dependencyError) Error() string {
	return "agentbox: sandbox unavailable: " + strings.TrimPrefix(e.err.Error(), sandbox.ErrUnavailable.Error()+": ")
}

func (e *dependencyError) Is(target error) bool { return target == ErrDependencyMissing }
func (e *dependencyError) Unwrap() error        { return e.err }

// spec compiles the Config and the call's options into a sandbox.Spec, with
// the egress proxy of the command when its network is filtered.
//
// It also returns what the writable roots held before the command runs,
// for beforeRun.sweep (nil without AutoProtectDangerousFiles).
func (m *Manager) spec(cfg Config, o *callOptions, dir string, res *resolver) (*sandbox.Spec, *egressRun, *beforeRun, error) {
	fsc := cfg.Filesystem
	// Checked again at every call: a command may have replaced a writable
	// root of the Config with a link since the Config was validated.
	writable := append(append([]string(nil), fsc.WritableRoots...), o.writable...)
	if err := checkWritable("Filesystem.WritableRoots", writable); err != nil {
		return nil, nil, nil, err
	}
	resolvedWritable := res.all(writable, false)
	// The record of granted roots, read once and only where a check needs
	// it (a state-directory read with a lock).
	var granted []grantedRoot
	grantedRead := false
	readGranted := func() error {
		if grantedRead {
			return nil
		}
		g, err := grantedRoots()
		granted, grantedRead = g, err == nil
		return err
	}
	if len(writable) > 0 || len(fsc.AllowRead) > 0 || o.dir != "" {
		if err := readGranted(); err != nil {
			return nil, nil, nil, err
		}
		if err := m.checkPlantedLinks(granted, fsc.AllowRead, writable, resolvedWritable, o.dir); err != nil {
			return nil, nil, nil, err
		}
	}
	spec := &sandbox.Spec{
		Network:          cfg.Network.Mode,
		AllowUnixSockets: cfg.Network.AllowUnixSockets,
		AllowReduced:     cfg.FallbackPolicy == FallbackWarn,
		Limits: sandbox.Limits{
			Processes:       cfg.ResourceLimits.MaxProcesses,
			MemoryBytes:     cfg.ResourceLimits.MaxMemoryBytes,
			FileDescriptors: cfg.ResourceLimits.MaxFileDescriptors,
			CPUSeconds:      cfg.ResourceLimits.MaxCPUSeconds,
			CountedOnly:     cfg.ResourceLimits.CountedMemoryOnly,
		},
	}
	if o.network != nil {
		spec.Network = *o.network
		switch {
		case spec.Network == NetworkAllowed && len(cfg.Network.DeniedDomains) > 0:
			return nil, nil, nil, configErr("WithNetwork", "the allowed mode gives the host's network without the proxy, and the config denies domains (Network.DeniedDomains) that only the filtered mode enforces")
		case spec.Network == NetworkAllowed && len(cfg.Credentials) > 0:
			// Found by red-team round 58: an upstream that keeps a
			// request's headers would show this command, unmasked, a
			// value another command of the Manager sent it.
			return nil, nil, nil, configErr("WithNetwork", "the allowed mode gives the host's network without the proxy, and the config has credentials (Credentials), whose echoes only the filtered mode's proxy masks; run open-network commands with a Manager without credentials")
		}
	}
	denyRead := append(append([]string(nil), fsc.DenyRead...), o.denyRead...)
	denyWrite := append(append([]string(nil), fsc.DenyWrite...), o.denyWrite...)
	spec.Filesystem = sandbox.Filesystem{
		Read:      res.all(fsc.AllowRead, false),
		Writable:  resolvedWritable,
		DenyRead:  append(res.all(denyRead, true), res.throughLinks(denyRead, resolvedWritable)...),
		DenyWrite: append(res.all(denyWrite, true), res.throughLinks(denyWrite, resolvedWritable)...),
		Visible:   visibleDir(dir),
		Scratch:   res.all(append(append([]string(nil), fsc.Scratch...), o.scratch...), false),
	}
	// The homes, resolved once: $HOME's first (home, the program's), then
	// the account's own where HOME names another (paths.Homes).
	var homes []string
	for _, h := range paths.Homes() {
		homes = append(homes, resolvePath(h))
	}
	home := ""
	if filepath.IsAbs(os.Getenv("HOME")) {
		home = homes[0]
	}
	// The program that embeds agentbox (the CLI, or the caller's agent)
	// runs unconfined: a command must not replace it for the next run.
	if exe := selfExecutable(); exe != "" && paths.WithinAny(exe, spec.Filesystem.Writable) {
		spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, exe)
	}
	// Registered as running before the kept files are read: a run that
	// records a file in a root meanwhile sees this sandbox, or this
	// sandbox sees the file (liveroots). Until the tree is gone
	// (beforeRun.end).
	live, err := liveroots.Add(resolvedWritable)
	if err != nil {
		m.log().Warn("agent runs started while this command runs will not know it may write its roots", "error", err)
	}
	done := false
	defer func() {
		if !done {
			live.Done()
		}
	}()
	// The vaults, passphrase files, manifests and audit logs agentbox was
	// handed or wrote, in any call and any process of this user
	// (keptfiles): no sandbox reads the first or rewrites the others.
	secrets, readOnly, err := keptfiles.Load()
	if err != nil {
		return nil, nil, nil, err
	}
	spec.Filesystem.DenyRead = append(spec.Filesystem.DenyRead, secrets...)
	spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, readOnly...)
	var before *beforeRun
	if fsc.AutoProtectDangerousFiles {
		repos, relHooks, err := m.protectRepositories(spec, fsc, home)
		if err != nil {
			return nil, nil, nil, err
		}
		before = newBeforeRun(repos, relHooks)
		spec.Filesystem.Protected = protectedNames(fsc)
		spec.Filesystem.ProtectedIfPresent = slices.Concat(ShellStartupFiles, ProtectedIfPresent, HookManagerFiles, AgentConfigFiles)
		// Every home: the account's own too where HOME names another, as
		// the user's next login reads its start-up files.
		for _, h := range homes {
			if paths.WithinAny(h, spec.Filesystem.Writable) {
				holdStartupFiles(spec, h)
			}
		}
		// Several protections may name one path; one mount is enough.
		spec.Filesystem.DenyWrite = slices.Compact(slices.Sorted(slices.Values(spec.Filesystem.DenyWrite)))
	}
	spec.Filesystem.Home = home
	// The deny paths whose other names (hard links) an earlier command may
	// have made, and the directories it may have made them in.
	m.defaultDenyOnce.Do(func() { m.defaultDeny = defaultDenySet() })
	// Only those that exist: a missing file has no other name to find, and
	// the record reads and lookups below would be paid by every call of a
	// user whose recorded vaults are gone (a test's, in /tmp).
	spec.Filesystem.SeekLinks = slices.DeleteFunc(append(soughtLinks(denyRead, m.defaultDeny, res), secrets...), func(p string) bool {
		_, err := os.Lstat(p)
		return err != nil
	})
	if len(spec.Filesystem.SeekLinks) > 0 {
		if err := readGranted(); err != nil {
			return nil, nil, nil, err
		}
		spec.Filesystem.Granted = grantedAreas(granted, spec.Filesystem.SeekLinks)
	}
	if live != nil {
		if before == nil {
			before = new(beforeRun)
		}
		before.live = live
	}
	if spec.Network != NetworkFiltered {
		done = true
		return spec, nil, before, nil
	}
	m.guardOnce.Do(func() { m.guard = egress.NewGuard() })
	run, err := newEgressRun(cfg, m.guard, &m.injections, spec)
	if err != nil {
		return nil, nil, nil, err
	}
	done = true
	return spec, run, before, nil
}

// protectRepositories protects the git repositories of the writable roots:
// the top one's commondir (the rest of its .git is in Protected), and every
// repository found below. It returns what it found, so that repositories the
// command plants can be told apart afterwards (sweepNewRepos), or an error
// for a root too large to scan whole (scanBoundError).
func (m *Manager) protectRepositories(spec *sandbox.Spec, fsc FilesystemConfig, home string) (before map[string][]string, relHooks []string, err error) {
	holds := make(map[string][]byte)
	before = make(map[string][]string)
	// The user's own configuration, wherever GIT_CONFIG_GLOBAL or
	// XDG_CONFIG_HOME put it, every file it includes, and the hooks
	// directory it names for every repository.
	global := readGitConfig(globalConfigFiles(home), home)
	if global.tooMany {
		return nil, nil, tooManyConfigFiles("your git configuration (" + strings.Join(globalConfigFiles(home), ", ") + ")")
	}
	protectConfigFiles(spec, holds, global.files)
	spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, hooksDirs(global.hooksPaths, "", home)...)
	for _, w := range spec.Filesystem.Writable {
		top := filepath.Join(w, ".git")
		if _, h := gitProtection(top, fsc); h != nil {
			maps.Copy(holds, h)
		}
		enclosing := enclosingRepos(w)
		heldWhole := !fsc.AllowGitWrites && !fsc.AllowGitConfig // see protectedNames
		if _, err := os.Lstat(top); heldWhole && os.IsNotExist(err) && len(enclosing) == 0 {
			// Outside every repository the missing .git is held by a file
			// that names none, not by an empty directory: tools that take
			// any .git directory for a repository (go build's version
			// stamping) would fail on that, and git answers "not a git
			// repository" either way. Inside one, an empty directory lets
			// git go on to the enclosing repository, and stays.
			holds[top] = noRepositoryHold
		}
		nested, err := m.gitRepos.nested(w, true)
		if err != nil {
			return nil, nil, err
		}
		before[w] = make([]string, 0, len(nested)+1) // every root is swept, with or without repositories
		for _, g := range nested {
			before[w] = append(before[w], repoKey(g))
		}
		if _, err := os.Lstat(top); err == nil {
			before[w] = append(before[w], repoKey(top))
		}
		before[w] = append(before[w], innerGitKeys(append([]string{top}, nested...))...)
		for _, g := range nested {
			ro, h := gitProtection(g, fsc)
			spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, ro...)
			maps.Copy(holds, h)
		}
		budget := newInnerBudget()
		for _, g := range append([]string{top}, nested...) {
			ro, h, cut := innerGitProtection(g, fsc, budget)
			spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, ro...)
			maps.Copy(holds, h)
			ro, h, cutLink := gitlinkProtection(g, spec.Filesystem.Writable, fsc, budget)
			spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, ro...)
			maps.Copy(holds, h)
			if cut || cutLink {
				m.log().Warn("agentbox: too many submodule and work tree git directories to protect one by one: kept read-only whole for this command",
					"repository", g, "max", gitDirScanMax, "max_per_root", innerScanBudget)
			}
		}
		// The hook directories and included configuration files of the
		// repositories in, below and around the root: core.hooksPath and
		// include.path may name files of the root's work tree.
		for _, g := range append(append([]string{top}, nested...), enclosing...) {
			if _, err := os.Lstat(g); err == nil {
				repo := readGitConfig(repoConfigFiles(g), home)
				if repo.tooMany {
					return nil, nil, tooManyConfigFiles("the configuration of the repository " + g)
				}
				spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, hooksDirs(slices.Concat(global.hooksPaths, repo.hooksPaths), filepath.Dir(g), home)...)
				protectConfigFiles(spec, holds, repo.included)
			}
		}
	}
	if len(holds) > 0 {
		spec.Filesystem.Holds = holds
	}
	return before, relativeHooksPaths(global.hooksPaths), nil
}

// startupDirs are the ShellStartupFiles that are directories; the rest are
// files.
var startupDirs = map[string]bool{
	".config/fish": true, ".config/git": true, ".config/environment.d": true,
	".config/autostart": true, ".config/systemd/user": true,
}

// startupHolds is what a missing start-up file is held with when empty
// would change what a shell does: a login bash reads the first of
// .bash_profile, .bash_login and .profile that exists, so a held
// .bash_profile reads on as bash would without it.
var startupHolds = map[string][]byte{
	".bash_profile": []byte("# Held by agentbox while a sandboxed command runs; reads on as bash does without it.\n" +
		"if [ -f ~/.bash_login ]; then . ~/.bash_login; elif [ -f ~/.profile ]; then . ~/.profile; fi\n"),
	".bash_login": []byte("# Held by agentbox while a sandboxed command runs; reads on as bash does without it.\n" +
		"if [ -f ~/.profile ]; then . ~/.profile; fi\n"),
}

// holdStartupFiles keeps the home's ShellStartupFiles read-only when a
// writable root holds the home, holding missing ones for the run: a
// directory with a placeholder directory, a file with a file that changes
// nothing (a directory where a shell or git expects a file makes them
// fail: git refuses to run at all with a directory as ~/.gitconfig).
func holdStartupFiles(spec *sandbox.Spec, home string) {
	for _, rel := range ShellStartupFiles {
		p := filepath.Join(home, rel)
		if _, err := os.Lstat(p); err == nil || startupDirs[rel] {
			spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, p)
			continue
		}
		if spec.Filesystem.Holds == nil {
			spec.Filesystem.Holds = make(map[string][]byte)
		}
		spec.Filesystem.Holds[p] = startupHolds[rel]
	}
}

// tooManyConfigFiles refuses a command whose writable roots hold or lie in
// a repository whose git configuration names more files than agentbox
// keeps read-only (maxConfigFiles): what the rest set, a hooks directory
// in the root say, could not be protected.
func tooManyConfigFiles(what string) error {
	return configErr("Filesystem.WritableRoots", "%s includes more than %d files (include.path, includeIf): too many to keep every one read-only; remove includes, or leave the repository out of the writable roots", what, maxConfigFiles)
}

// protectConfigFiles keeps git configuration files read-only: those that
// exist with a mount, a missing one with an empty held file (git fails on a
// directory where it expects a file, so a placeholder directory would
// break it).
func protectConfigFiles(spec *sandbox.Spec, holds map[string][]byte, files []string) {
	for _, f := range files {
		if _, err := os.Lstat(f); err == nil {
			spec.Filesystem.DenyWrite = append(spec.Filesystem.DenyWrite, f)
		} else {
			holds[f] = nil
		}
	}
}

// protectedNames is what stays read-only inside every writable root.
func protectedNames(fsc FilesystemConfig) []string {
	var out []string
	for _, p := range ProtectedPaths {
		if p == ".git" && (fsc.AllowGitWrites || fsc.AllowGitConfig) {
			out = append(out, ".git/hooks")
			if !fsc.AllowGitConfig {
				out = append(out, ".git/config")
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// privateDirs are replaced inside every sandbox by an empty directory of
// its own.
var privateDirs = []string{"/tmp", "/dev/shm", "/run"}

// visibleDirs are the private directories inside which the working
// directory is shown to the sandbox, read-only; /run, with the host's
// service sockets, is not one of them.
var visibleDirs = []string{"/tmp", "/dev/shm"}

// checkPlantedLinks refuses the paths a call names that go through a link
// a command could have planted (see plantArea), and records the call's
// writable roots before its sandbox starts. A link inside a directory any
// sandbox of this user was given to write may have been planted there.
func (m *Manager) checkPlantedLinks(granted []grantedRoot, allowRead, writable, resolvedWritable []string, workdir string) error {
	area := newPlantArea(resolvedWritable, granted)
	if err := checkThroughLinks("Filesystem.AllowRead", allowRead, area); err != nil {
		return err
	}
	if err := checkThroughLinks("Filesystem.WritableRoots", writable, area); err != nil {
		return err
	}
	if workdir != "" {
		// A working directory is shown to the sandbox (read-only) even
		// where the policy would hide it, such as the host's /tmp.
		if err := checkThroughLinks("WithWorkingDir", []string{workdir}, area); err != nil {
			return err
		}
	}
	if err := recordGranted(resolvedWritable); err != nil {
		m.log().Warn("links a command plants in its writable roots will be caught in this call only", "error", err)
	}
	return nil
}

// checkWorkingDir refuses a working directory the sandbox would not see: a
// denied one, and, unless a writable root brings them in, /tmp or /dev/shm
// themselves, which every sandbox replaces with empty ones, and anything in
// /run, whose host service sockets no sandbox is shown. A directory inside
// /tmp or /dev/shm is shown read-only (visibleDir). (Elsewhere the
// sandbox's init checks it, in the sandbox's own view.)
//
// res is the call's resolver, which spec uses after it.
func checkWorkingDir(dir string, cfg Config, o *callOptions, res *resolver) error {
	if filepath.IsAbs(dir) {
		r := res.resolve(dir)
		for _, d := range append(append([]string(nil), cfg.Filesystem.DenyRead...), o.denyRead...) {
			if d = res.resolve(d); r == d || strings.HasPrefix(r, d+"/") {
				return configErr("working directory", "%s is denied to every sandbox of this policy (deny-read %s); work from another directory", dir, d)
			}
		}
	}
	private := ""
	for _, p := range privateDirs {
		if dir == p || p == "/run" && strings.HasPrefix(dir, p+"/") {
			private = p
		}
	}
	if private == "" {
		return nil
	}
	for _, w := range append(append([]string(nil), cfg.Filesystem.WritableRoots...), o.writable...) {
		if w = resolvePath(w); dir == w || strings.HasPrefix(dir, w+"/") {
			return nil
		}
	}
	const fix = "make it a writable root (--write %s) or work from another directory"
	if dir == private {
		return configErr("working directory", "every sandbox replaces %s with an empty one of its own; "+fix, dir, dir)
	}
	return configErr("working directory", "%s is inside %s, which every sandbox replaces with an empty one of its own; "+fix, dir, private, dir)
}

// visibleDir returns the working directory when it lies inside /tmp or
// /dev/shm, where the sandbox would not see it unless shown it.
func visibleDir(dir string) []string {
	if !filepath.IsAbs(dir) {
		return nil
	}
	dir = resolvePath(dir)
	for _, p := range visibleDirs {
		if !strings.HasPrefix(dir, p+"/") {
			continue
		}
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return []string{dir}
		}
		break // missing: the sandbox's init says so
	}
	return nil
}

// workingDir is the command's working directory: the option, else the
// caller's own, which must still exist.
func workingDir(o *callOptions) (string, error) {
	if o.dir != "" {
		return resolvePath(o.dir), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		// Removed under the caller, most likely: running from / instead
		// would run the command somewhere it was not meant to.
		return "", configErr("working directory", "the current directory cannot be found (%v): it may have been removed; give WithWorkingDir or change to an existing directory", err)
	}
	return resolvePath(wd), nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstPositive(ns ...int64) int64 {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}
