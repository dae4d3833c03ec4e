package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/sandbox"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentbox-dev/agentbox/internal/shquote"
)

func init() { commands = append(commands, newExecCmd) }

// policyFlags are the policy flags shared by exec (and later run).
type policyFlags struct {
	write, read, denyRead, denyWrite []string
	scratch                          []string
	env                              []string
	workdir                          string
	timeout                          time.Duration
	timeoutGiven                     bool // --timeout is on the command line
	network                          string
	allowDomains, denyDomains        []string
	profile                          string
	fallback                         string
	allowGitWrites                   bool
	allowUnixSockets                 bool
}

func (f *policyFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringArrayVar(&f.write, "write", nil, "make `PATH` a writable root (repeatable)")
	fl.StringArrayVar(&f.read, "read", nil, "restrict reads to `PATH` plus system directories (repeatable)")
	fl.StringArrayVar(&f.denyRead, "deny-read", nil, "hide `PATH` entirely (repeatable)")
	fl.StringArrayVar(&f.denyWrite, "deny-write", nil, "keep `PATH` read-only, even inside a writable root (repeatable)")
	fl.StringArrayVar(&f.scratch, "scratch", nil, "let the command write `DIR`, its changes discarded when it ends (repeatable; the home's tool caches are by default)")
	fl.StringArrayVar(&f.env, "env", nil, "pass `KEY=VALUE` to the command, or KEY with agentbox's own value (repeatable)")
	fl.StringVar(&f.workdir, "workdir", "", "working `DIR` of the command (default: the current directory)")
	fl.DurationVar(&f.timeout, "timeout", 0, "kill the whole process tree after `DUR` (exit 137)")
	fl.StringVar(&f.network, "network", "", "network `MODE`: blocked, filtered or allowed (default: the profile's)")
	fl.StringArrayVar(&f.allowDomains, "allow-domain", nil, "let the filtered network reach `PATTERN` (host, *.domain, host:port; repeatable)")
	fl.StringArrayVar(&f.denyDomains, "deny-domain", nil, "refuse `PATTERN` even if allowed (repeatable)")
	fl.StringVar(&f.profile, "profile", "default", "base policy: default, ci or dev")
	fl.BoolVar(&f.allowGitWrites, "allow-git-writes", false, "let the command write .git in writable roots (commit, checkout); hooks and config stay read-only")
	fl.BoolVar(&f.allowUnixSockets, "allow-unix-sockets", false, "let the command create unix sockets (servers in /tmp, tmux); a host service's socket in a readable directory becomes reachable")
	fl.StringVar(&f.fallback, "fallback", "", "when a layer is unavailable: strict (refuse, exit 125) or warn (run with what is there; default: the profile's)")
}

// config builds the Manager's Config and the per-call options.
func (f *policyFlags) config() (agentbox.Config, []agentbox.Option, error) {
	var cfg agentbox.Config
	switch f.profile {
	case "default":
		cfg = agentbox.DefaultConfig()
	case "ci":
		cfg = agentbox.CIConfig()
	case "dev":
		cfg = agentbox.DevelopmentConfig()
	default:
		return cfg, nil, fmt.Errorf("invalid --profile %q: want default, ci or dev", f.profile)
	}
	// One command: its sandbox starts now, while the command is prepared,
	// and no spare after it.
	cfg.ColdStart, cfg.WarmFirst = true, true
	switch f.fallback {
	case "":
	case "strict", "warn":
		cfg.FallbackPolicy = agentbox.FallbackPolicy(f.fallback)
	default:
		return cfg, nil, fmt.Errorf("invalid --fallback %q: want strict or warn", f.fallback)
	}
	if f.network != "" {
		var mode agentbox.NetworkMode
		if err := mode.UnmarshalText([]byte(f.network)); err != nil {
			return cfg, nil, fmt.Errorf("invalid --network %q: want blocked, filtered or allowed", f.network)
		}
		cfg.Network.Mode = mode
	}
	for _, d := range []struct {
		flag     string
		patterns []string
	}{{"allow-domain", f.allowDomains}, {"deny-domain", f.denyDomains}} {
		for _, p := range d.patterns {
			if _, err := egress.ParsePattern(p); err != nil {
				return cfg, nil, fmt.Errorf("invalid --%s %q: %w", d.flag, p, err)
			}
		}
	}
	// Domain lists act only through the filtered network's proxy: in the
	// other modes they would be dropped without a word.
	if cfg.Network.Mode != agentbox.NetworkFiltered && len(f.allowDomains)+len(f.denyDomains) > 0 {
		flag := "--allow-domain"
		if len(f.denyDomains) > 0 {
			flag = "--deny-domain"
		}
		return cfg, nil, fmt.Errorf("%s applies only to the filtered network, and this one is %s; use --network filtered", flag, cfg.Network.Mode)
	}
	cfg.Network.AllowUnixSockets = cfg.Network.AllowUnixSockets || f.allowUnixSockets
	cfg.Network.AllowedDomains = append(cfg.Network.AllowedDomains, f.allowDomains...)
	cfg.Network.DeniedDomains = append(cfg.Network.DeniedDomains, f.denyDomains...)
	abs := func(flag string, ps []string) ([]string, error) {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if p == "" {
				return nil, fmt.Errorf("invalid --%s: empty path", flag)
			}
			// Not filepath.Abs, which cleans: see policy.JoinPath.
			wd, e := "/", expandHome(p)
			if !filepath.IsAbs(e) {
				var err error
				if wd, err = os.Getwd(); err != nil {
					return nil, fmt.Errorf("invalid --%s %q: %w", flag, p, err)
				}
			}
			a := policy.JoinPath(wd, e)
			if strings.ContainsAny(p, "*?[") {
				if _, err := os.Lstat(a); err != nil {
					return nil, fmt.Errorf("invalid --%s %q: a pattern, and paths are not patterns (it would match only a file of that very name, which does not exist); give each path", flag, p)
				}
			}
			out = append(out, a)
		}
		return out, nil
	}
	var err error
	fs := &cfg.Filesystem
	var write, read, denyRead, denyWrite, scratch []string
	for _, x := range []struct {
		flag string
		in   []string
		out  *[]string
	}{{"write", f.write, &write}, {"read", f.read, &read}, {"deny-read", f.denyRead, &denyRead}, {"deny-write", f.denyWrite, &denyWrite}, {"scratch", f.scratch, &scratch}} {
		if *x.out, err = abs(x.flag, x.in); err != nil {
			return cfg, nil, err
		}
	}
	for i, w := range write {
		if _, err := os.Stat(w); errors.Is(err, os.ErrNotExist) {
			return cfg, nil, fmt.Errorf("invalid --write %q: %s does not exist; create it first or name an existing directory", f.write[i], w)
		}
	}
	fs.WritableRoots = append(fs.WritableRoots, write...)
	fs.AllowGitWrites = fs.AllowGitWrites || f.allowGitWrites
	fs.AllowRead = append(fs.AllowRead, read...)
	fs.DenyRead = append(fs.DenyRead, denyRead...)
	fs.DenyWrite = append(fs.DenyWrite, denyWrite...)
	for i, s := range scratch {
		if k, ok := sandbox.KernelFilesystem(s); ok {
			return cfg, nil, fmt.Errorf("invalid --scratch %q: %s", f.scratch[i], sandbox.KernelFilesystemError(f.scratch[i], s, k))
		}
	}
	fs.Scratch = append(fs.Scratch, scratch...)

	var opts []agentbox.Option
	if len(f.env) > 0 {
		env, err := envFlags(f.env, os.LookupEnv)
		if err != nil {
			return cfg, nil, err
		}
		opts = append(opts, agentbox.WithEnv(env...))
	}
	if f.workdir == "" {
		if _, err := os.Getwd(); err != nil {
			return cfg, nil, fmt.Errorf("the current directory cannot be found (%w): it may have been removed; cd to an existing directory or pass --workdir DIR", err)
		}
	}
	if f.workdir != "" {
		dir, err := abs("workdir", []string{f.workdir})
		if err != nil {
			return cfg, nil, err
		}
		// The sandbox can only say it does not see the directory; the
		// host knows why.
		if fi, err := os.Stat(dir[0]); errors.Is(err, os.ErrNotExist) {
			return cfg, nil, fmt.Errorf("invalid --workdir %q: %s does not exist; create it or choose another working directory", f.workdir, dir[0])
		} else if err == nil && !fi.IsDir() {
			return cfg, nil, fmt.Errorf("invalid --workdir %q: %s is not a directory; name the directory to work in", f.workdir, dir[0])
		}
		opts = append(opts, agentbox.WithWorkingDir(dir[0]))
	}
	if f.timeout < 0 || f.timeoutGiven && f.timeout == 0 {
		return cfg, nil, fmt.Errorf("invalid --timeout %v: must be positive; leave the flag out for no timeout", f.timeout)
	}
	if f.timeout > 0 {
		opts = append(opts, agentbox.WithTimeout(f.timeout))
	}
	return cfg, opts, nil
}

// expandHome turns a leading ~ into the home directory, as a shell would for
// an unquoted word.
func expandHome(p string) string {
	if p == "~" || len(p) > 1 && p[:2] == "~/" {
		if home, err := os.UserHomeDir(); err == nil {
			return policy.JoinPath(home, p[1:])
		}
	}
	return p
}

func newExecCmd() *cobra.Command {
	var pf policyFlags
	var shellString string
	var asJSON, approve, ownTTY bool
	c := &cobra.Command{
		Use:   "exec [flags] ([--] PROGRAM [ARGS...] | -c 'SHELL STRING')",
		Short: "Run one command in a sandbox",
		Long: `Run one command in a sandbox and exit with its status.

The default policy reads everywhere except credential stores (~/.ssh, ~/.aws,
...), writes nowhere but a private /tmp, and has no network but the filtering
egress proxy. Exit status: the command's own; 128+N if signal N ended it; 137
if agentbox killed it (timeout); 126 if policy refused it; 125 if agentbox
itself failed (bad flags, sandbox unavailable).`,
		Example: `  agentbox exec -- ls -la ~                 # ~/.ssh is hidden
  agentbox exec --write . -- make test       # the current directory is writable
  agentbox exec --timeout 30s -c 'npm test'  # a shell string
  agentbox exec --json -- uname -a           # the result as JSON`,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runExec(cmd, &pf, shellString, args, asJSON, approve, ownTTY)
			if asJSON {
				printJSONFailure(cmd.OutOrStdout(), err)
			}
			return err
		},
	}
	pf.register(c)
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		err = programFlagError(c, err)
		if jsonRequested(c) {
			printJSONFailure(c.OutOrStdout(), err)
		}
		return err
	})
	c.Flags().SetInterspersed(false) // "exec ls -la": -la is the program's
	c.Flags().StringVarP(&shellString, "command", "c", "", "run `STRING` with the shell (/bin/sh -c)")
	c.Flags().BoolVar(&asJSON, "json", false, "capture the output and print the result as JSON")
	c.Flags().BoolVarP(&ownTTY, "tty", "t", false, "give the command a terminal of its own, relayed to yours (interactive shells, editors, job control)")
	c.Flags().BoolVar(&approve, "approve", false, "run a command the classifier escalates without asking (forbidden ones stay refused)")
	return c
}

// runExec is exec's work once its flags are parsed.
func runExec(cmd *cobra.Command, pf *policyFlags, shellString string, args []string, asJSON, approve, ownTTY bool) error {
	pf.timeoutGiven = cmd.Flags().Changed("timeout")
	if (shellString == "") == (len(args) == 0) {
		return usageError(errors.New("give either -- PROGRAM [ARGS...] or -c 'SHELL STRING'"))
	}
	cfg, opts, err := pf.config()
	if err != nil {
		return usageError(err)
	}
	var in *os.File
	if ownTTY {
		if asJSON {
			return usageError(errors.New("--tty and --json exclude each other: --json captures the output"))
		}
		if in, err = checkTerminal(cmd.InOrStdin()); err != nil {
			return usageError(err)
		}
	}
	if approve {
		opts = append(opts, agentbox.WithApproved())
	} else if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		defer tty.Close()
		cfg.ApprovalCallback = askOnTerminal(cmd.Context(), tty)
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		return exitWith(exitInternal, err)
	}
	defer m.Close()
	if asJSON {
		return execJSON(cmd, m, shellString, args, opts)
	}
	return execStream(cmd, m, cfg, shellString, args, opts, in)
}

// envFlags turns --env values into KEY=VALUE pairs: a bare KEY takes
// agentbox's own value (as docker run -e does), and must have one.
func envFlags(in []string, lookup func(string) (string, bool)) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, e := range in {
		k, _, hasValue := strings.Cut(e, "=")
		switch {
		case k == "":
			return nil, fmt.Errorf("invalid --env %q: want KEY=VALUE, or KEY to pass agentbox's own value", e)
		case !isEnvName(k):
			return nil, fmt.Errorf("invalid --env %q: %q is not a variable name; use letters, digits and _, not starting with a digit", e, k)
		case hasValue:
			out = append(out, e)
		default:
			v, ok := lookup(k)
			if !ok {
				return nil, fmt.Errorf("invalid --env %q: %s is not set in agentbox's environment; give %s=VALUE", e, k, k)
			}
			out = append(out, k+"="+v)
		}
	}
	return out, nil
}

// jsonRequested reports whether exec's own flags, as far as c's command
// line shows them, include --json: a flag error stops the parse before
// it gets there, and the JSON must still be printed.
func jsonRequested(c *cobra.Command) bool {
	ctx := c.Context()
	if ctx == nil {
		return false
	}
	line, _ := ctx.Value(commandLineKey{}).([]string)
	// Skip to the words after the command's name.
	for i, w := range line {
		if w == c.Name() {
			line = line[i+1:]
			break
		}
	}
	for i := 0; i < len(line); i++ {
		w := line[i]
		if w == "--" || !strings.HasPrefix(w, "-") || w == "-" {
			return false // the program's words start
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if name == "json" {
			return !hasValue || value == "true" || value == "1"
		}
		var f *pflag.Flag
		if strings.HasPrefix(w, "--") {
			f = c.Flags().Lookup(name)
		} else if len(name) == 1 {
			f = c.Flags().ShorthandLookup(name)
		}
		if f != nil && f.NoOptDefVal == "" && !hasValue {
			i++ // its value
		}
	}
	return false
}

// isEnvName reports whether k is a portable environment variable name
// (POSIX: letters, digits and _, not starting with a digit), one a shell
// can read.
func isEnvName(k string) bool {
	for i, c := range k {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return k != ""
}

// programFlagError adds, to an unknown flag, that the program's own flags
// go after the program: agentbox reads the flags before it as its own.
func programFlagError(c *cobra.Command, err error) error {
	if strings.HasPrefix(err.Error(), "unknown ") && strings.Contains(err.Error(), "flag") {
		err = fmt.Errorf("%w (a flag of the program goes after it: agentbox %s [flags] [--] PROGRAM [ARGS...])", err, c.Name())
	}
	return usageError(err)
}

// execJSON runs the command with captured output and prints the ExecResult.
// A stop signal (caught by main for exec) cancels cmd's context, which
// kills the command's whole tree (exit 137, printed as the result).
func execJSON(cmd *cobra.Command, m *agentbox.Manager, shell string, args []string, opts []agentbox.Option) error {
	ctx := cmd.Context()
	defer holdStops(func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "agentbox: "+s) })()
	// Before the start: Exec returns only once the command has ended.
	ignoreTerminalStops()
	var res *agentbox.ExecResult
	var err error
	if shell != "" {
		res, err = m.Exec(ctx, shell, opts...)
	} else {
		res, err = m.ExecArgs(ctx, args[0], args[1:], opts...)
	}
	if res == nil {
		// A stop signal before the command ran fails the start with the
		// cancelled context: 128+N, as execStream's claim gives.
		return interruptedOr(ctx, execFailure(err))
	}
	if shell == "" {
		// The classifier shows the words it judged; the command as given
		// is the argv, quoted as a shell would need it.
		res.Classification.Command = shquote.Join(args)
	}
	printDegraded(cmd.ErrOrStderr(), res.Degraded)
	enc := newJSONEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return exitWith(exitInternal, err)
	}
	return exitWith(res.ExitCode, nil)
}

// execJSONFailure is what --json prints when the command did not run: the
// exit status, the one-line error, and the classifier's verdict if it
// refused the command.
type execJSONFailure struct {
	ExitCode       int             `json:"exit_code"`
	Error          string          `json:"error"`
	Classification *refusalVerdict `json:"classification,omitempty"`
}

type refusalVerdict struct {
	Decision string `json:"decision"`
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
	Command  string `json:"command"`
}

// printJSONFailure prints, for exec --json, what kept the command from
// running: err as returned to main. Nothing when the command ran (err nil,
// or its exit status alone).
func printJSONFailure(w io.Writer, err error) {
	var ee *exitError
	if err == nil || errors.As(err, &ee) && ee.err == nil {
		return
	}
	_ = printJSON(w, jsonFailureOf(err))
}

// jsonFailureOf is the --json form of failure: its exit status, its
// message as main prints it on stderr (without the "agentbox: " prefix),
// and the classifier's verdict if it refused the command.
func jsonFailureOf(failure error) execJSONFailure {
	out := execJSONFailure{ExitCode: exitFailure, Error: strings.TrimPrefix(failure.Error(), "agentbox: ")}
	var ee *exitError
	if errors.As(failure, &ee) {
		out.ExitCode = ee.code
	}
	err := failure
	var fe *agentbox.ForbiddenCommandError
	var ce *agentbox.EscalatedCommandError
	switch {
	case errors.As(err, &fe):
		out.Classification = &refusalVerdict{"forbidden", fe.Rule, fe.Reason, fe.Command}
	case errors.As(err, &ce):
		out.Classification = &refusalVerdict{"escalated", ce.Rule, ce.Reason, ce.Command}
	}
	return out
}

// execStream runs the command with the terminal's streams, forwarding
// signals, and exits with its status. With tty (--tty), the command gets a
// terminal of its own instead, relayed to tty.
func execStream(cmd *cobra.Command, m *agentbox.Manager, cfg agentbox.Config, shell string, args []string, opts []agentbox.Option, tty *os.File) error {
	prog, argv := "", args
	if shell != "" {
		prog, argv = cfg.Shell, []string{cfg.Shell, "-c", shell}
	} else {
		prog = args[0]
	}
	c := &exec.Cmd{Path: prog, Args: argv, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
	if tty != nil {
		c.Stdin, c.Stdout, c.Stderr = nil, nil, nil
		opts = append(opts, terminalOption(terminalSize(tty)))
	}
	sigs, err := interruptSignals(cmd.Context())
	if err != nil {
		return interrupted(err)
	}
	defer holdStops(func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "agentbox: "+s) })()
	if tty == nil {
		// Watching from before the start: a command that clears ISIG at
		// once is caught at the next look, however long the start takes
		// to return (the terminal's modes from before it are the ones
		// kept).
		defer guardInterrupt(func() {
			fmt.Fprintln(cmd.ErrOrStderr(), "agentbox: the command turned off the terminal's interrupt key: agentbox turned it back on, so that ^C still stops it")
		})()
	}
	ignoreTerminalStops()
	p, err := m.Start(context.Background(), c, opts...)
	if err != nil {
		signal.Stop(sigs)
		// ^C at the approval prompt: nothing started, 128+N.
		return interruptedOr(cmd.Context(), execFailure(err))
	}
	programStarted(cmd.Context())
	defer relaySignals(sigs, p)()
	printDegraded(cmd.ErrOrStderr(), p.Degraded())
	if tty != nil {
		relay, err := startRelay(tty, cmd.OutOrStdout(), p.Terminal())
		if err != nil {
			_ = p.Kill()
			_, _ = p.Wait()
			return exitWith(exitInternal, fmt.Errorf("--tty: %w", err))
		}
		res, err := p.Wait()
		relay.finish()
		return execDone(cmd, res, err, execHints(cfg.Filesystem, shell, args, exitCode(res)))
	}
	res, err := p.Wait()
	return execDone(cmd, res, err, execHints(cfg.Filesystem, shell, args, exitCode(res)))
}

// exitCode is res's exit status, 0 without a result.
func exitCode(res *agentbox.ExecResult) int {
	if res == nil {
		return 0
	}
	return res.ExitCode
}

// terminalOption gives the command a terminal of size (rows, columns),
// or of the kernel's default size when that is unknown.
func terminalOption(size [2]uint16) agentbox.Option {
	if size[0] == 0 || size[1] == 0 {
		return agentbox.WithTerminal()
	}
	return agentbox.WithTerminalSize(size[0], size[1])
}

// execDone reports how the command ended and exits with its status.
func execDone(cmd *cobra.Command, res *agentbox.ExecResult, err error, note string) error {
	if res == nil {
		return execFailure(err)
	}
	code := res.ExitCode
	switch {
	case res.TimedOut && code != exitKilled:
		// The command ended in time, but its output was still on its way
		// to a reader that did not take it: the timeout cut it. A success
		// status would pass a truncated stream on as complete.
		fmt.Fprintln(cmd.ErrOrStderr(), "agentbox: --timeout reached while the command's output was still being written out (its reader did not take it in time): the rest was cut")
		code = exitKilled
	case res.TimedOut:
		fmt.Fprintf(cmd.ErrOrStderr(), "agentbox: killed after --timeout %v\n", res.Duration.Round(time.Millisecond))
	}
	printViolations(cmd.ErrOrStderr(), res.Violations)
	if note != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), note)
	}
	return exitWith(code, nil)
}

// printDegraded warns, a line each, of what the warn fallback ran without:
// the user chose to run degraded, not to be left unaware of it.
func printDegraded(w io.Writer, missing []string) {
	for _, d := range missing {
		fmt.Fprintf(w, "agentbox: warning: the policy is not fully enforced: %s\n", d)
	}
}

// execFailure maps an error that stopped the command from running to the
// exit status DESIGN.md gives it.
func execFailure(err error) error {
	if errors.Is(err, agentbox.ErrForbiddenCommand) {
		return exitWith(exitRefused, err)
	}
	if errors.Is(err, agentbox.ErrEscalatedCommand) {
		return exitWith(exitRefused, fmt.Errorf("%w; approve it on a terminal, or pass --approve", err))
	}
	var se *agentbox.SetupError
	if errors.As(err, &se) && se.ExitCode != 0 && se.ExitCode != exitInternal {
		return exitWith(se.ExitCode, fmt.Errorf("%s: %s", se.Stage, se.Msg))
	}
	return exitWith(exitInternal, err)
}
