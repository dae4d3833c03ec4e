package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/supervise"
)

func init() { commands = append(commands, newRunCmd) }

func newRunCmd() *cobra.Command {
	var manifest string
	var grace time.Duration
	var approve, ownTTY bool
	vf := &vaultFlags{}
	c := &cobra.Command{
		Use:   "run --manifest MANIFEST [--] PROGRAM [ARGS...]",
		Short: "Run an agent under a manifest's policy, limits and audit log",
		Long: `Run PROGRAM as the agent a manifest declares: its filesystem and network
permissions enforced by the sandbox, its duration and memory limits
enforced by agentbox (a breach kills the whole process tree), every
decision in its tamper-evident audit log. The agent is listed by
"agentbox ps" and can be stopped from anywhere with "agentbox kill".

Standard input and output are the agent's (a terminal stays a terminal);
with --tty it gets a terminal of its own instead, relayed to yours (/dev/tty
and job control work inside, and ^C goes to the agent's terminal).
SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to it; if it is still
running --grace later, or on a second such signal, its whole tree is killed.

The program is classified like "agentbox exec" commands: a forbidden one
is refused, an escalated one needs approval on the terminal (or --approve).

Exit status: the agent's own; 128+N if signal N ended it; 137 if agentbox
killed it (limit, grace period, kill switch); 126 if the classifier refused
the program; 125 if the manifest is invalid or agentbox could not start it.`,
		Example: `  agentbox run --manifest manifests/timeout-test.yaml -- bash manifests/timeout-test.sh
  agentbox run --manifest agent.yaml -- python3 agent.py --verbose`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if manifest == "" {
				return usageError(errors.New("run needs --manifest FILE"))
			}
			if len(args) == 0 {
				return usageError(errors.New("run needs the agent's program: agentbox run --manifest FILE -- PROGRAM [ARGS...]"))
			}
			if grace <= 0 {
				return usageError(fmt.Errorf("invalid --grace %v: must be positive", grace))
			}
			var in *os.File
			if ownTTY {
				var err error
				if in, err = checkTerminal(cmd.InOrStdin()); err != nil {
					return usageError(err)
				}
			}
			return runAgent(cmd, runFlags{manifest: manifest, grace: grace, approve: approve, tty: in}, vf, args)
		},
	}
	c.Flags().StringVar(&vf.path, "vault", "", "the vault `FILE` holding the manifest's credentials (default: the data directory's)")
	c.Flags().StringVar(&vf.passFile, "passphrase-file", "", "read the vault passphrase from `FILE` (else $AGENTBOX_VAULT_PASSPHRASE, else a prompt)")
	c.Flags().StringVar(&manifest, "manifest", "", "the agent's manifest `FILE` (YAML)")
	c.Flags().DurationVar(&grace, "grace", supervise.DefaultGrace, "how long the agent has to exit after SIGINT/SIGTERM/SIGHUP/SIGQUIT before its tree is killed")
	// Everything after PROGRAM is the program's, even words that look like
	// agentbox flags.
	c.Flags().BoolVar(&approve, "approve", false, "run a program the classifier escalates without asking (forbidden ones stay refused)")
	c.Flags().BoolVarP(&ownTTY, "tty", "t", false, "give the agent a terminal of its own, relayed to yours")
	c.Flags().SetInterspersed(false)
	c.SetFlagErrorFunc(programFlagError)
	return c
}

// runFlags are run's own flags.
type runFlags struct {
	manifest string
	grace    time.Duration
	approve  bool
	tty      *os.File // --tty: the user's terminal, to relay the agent's to
}

func runAgent(cmd *cobra.Command, f runFlags, vf *vaultFlags, args []string) error {
	manifestFile, grace, approve := f.manifest, f.grace, f.approve
	stderr := cmd.ErrOrStderr()
	if _, ok := stderr.(*os.File); !ok {
		// The agent's stderr is copied in from a pipe while notices are
		// printed: one lock for both.
		stderr = &lockedWriter{w: stderr}
	}
	m, err := loadRunnable(manifestFile)
	if err != nil {
		var merrs *policy.ManifestErrors
		if errors.As(err, &merrs) {
			for _, e := range merrs.List {
				fmt.Fprintln(stderr, escapeLines(e.Error()))
			}
			return exitWith(exitInternal, fmt.Errorf("invalid manifest %s: %d %s", manifestFile, len(merrs.List), plural(len(merrs.List), "error", "errors")))
		}
		return exitWith(exitInternal, err)
	}
	p := &noticePrinter{w: stderr, name: m.Name}
	opts := supervise.Options{
		Program: args[0], Args: args[1:],
		Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		Grace:   grace,
		Notify:  p.print,
		Secrets: vf.secretFiles(),
	}
	if f.tty != nil {
		opts.Stdin, opts.Stdout, opts.Stderr, opts.Terminal = nil, nil, nil, true
		opts.TerminalSize = terminalSize(f.tty)
	}
	if len(m.Permissions.Credentials) > 0 {
		v, err := vf.openForRun(cmd.Context())
		if err != nil {
			// ^C at the passphrase prompt: nothing started, 128+N.
			return interruptedOr(cmd.Context(), exitWith(exitInternal, err))
		}
		defer v.Close() // wipes the key
		opts.Credentials = v
	}
	if approve {
		opts.Approved = true
	} else if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		defer tty.Close()
		opts.Approval = askOnTerminal(cmd.Context(), tty)
	}
	// Signals are caught from before the start, so that none that comes
	// while the agent starts is lost; they are forwarded once it runs.
	sigs, err := interruptSignals(cmd.Context())
	if err != nil {
		return interrupted(err)
	}
	defer holdStops(func(s string) { p.printf("⚠️  %s", s) })()
	if f.tty == nil {
		// Watching from before the start: an agent that clears ISIG at
		// once is caught at the next look, however long the start takes
		// to return (red-team round 59's test lost ^C to a loaded start).
		defer guardInterrupt(func() {
			p.printf("⚠️  Agent %s turned off the terminal's interrupt key: agentbox turned it back on, so that ^C still stops it", m.Name)
		})()
	}
	// Before the start, the vault's prompt done: Start prints warnings
	// once the agent runs.
	ignoreTerminalStops()
	ag, err := supervise.Start(context.WithoutCancel(cmd.Context()), m, opts)
	if err != nil {
		signal.Stop(sigs)
		// ^C at the approval prompt: nothing started, 128+N.
		return interruptedOr(cmd.Context(), runFailure(err))
	}
	programStarted(cmd.Context())
	p.printf("🚀 Agent %s started (id %s): runtime native · memory %s via %s%s%s",
		m.Name, ag.ID(), mibString(ag.MemoryLimit()), ag.MemoryMechanism(), durationPart(m), auditPart(ag.AuditLog()))

	defer relaySignals(sigs, ag)()

	if f.tty != nil {
		p.raw.Store(true) // the user's terminal goes raw: lines end in \r\n
		relay, err := startRelay(f.tty, cmd.OutOrStdout(), ag.Terminal())
		if err != nil {
			p.raw.Store(false)
			ag.Kill(err.Error())
			_, _ = ag.Wait()
			return exitWith(exitInternal, fmt.Errorf("--tty: %w", err))
		}
		res, err := ag.Wait()
		relay.finish()
		p.raw.Store(false)
		return p.exited(m.Name, res, err)
	}
	res, err := ag.Wait()
	return p.exited(m.Name, res, err)
}

// exited reports how the agent ended and exits with its status.
func (p *noticePrinter) exited(name string, res *supervise.Result, err error) error {
	if res == nil {
		return exitWith(exitInternal, err)
	}
	mark := "✅"
	if res.ExitCode != 0 {
		mark = "⚠️ "
	}
	p.printf("%s Agent %s exited code %d in %s", mark, name, res.ExitCode, supervise.FormatElapsed(res.Duration))
	if res.AuditErr != nil {
		p.printf("⚠️  audit log %s: %v", res.AuditLog, res.AuditErr)
	}
	if err != nil {
		p.printf("⚠️  %v", err)
	}
	return exitWith(res.ExitCode, nil)
}

// runFailure maps an error that kept the agent from starting to an exit
// status: 126 when the classifier refused the program, 127/126 when it is
// missing or not executable, 125 for everything else (manifest, runtime,
// sandbox, audit log).
func runFailure(err error) error { return execFailure(err) }

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// noticePrinter prints supervise's notices, one line each, on stderr.
type noticePrinter struct {
	w    io.Writer // a *os.File or a lockedWriter: safe for concurrent lines
	name string
	raw  atomic.Bool // the terminal is raw (--tty): end lines with \r\n
}

func (p *noticePrinter) print(n supervise.Notice) {
	text := escapeControls(n.Text)
	switch n.Kind {
	case supervise.NoticeKilling:
		p.printf("🛑 Killing agent %s: %s", p.name, text)
	case supervise.NoticeKilled:
		p.printf("🛑 Agent %s was killed: %s", p.name, text)
	case supervise.NoticeAlert:
		p.printf("🔔 Alert from agent %s: %s", p.name, text)
	default:
		p.printf("⚠️  Agent %s: %s", p.name, text)
	}
}

func (p *noticePrinter) printf(format string, args ...any) {
	end := "\n"
	if p.raw.Load() {
		end = "\r\n"
	}
	fmt.Fprintf(p.w, format+end, args...)
}

func mibString(b int64) string {
	if b%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d bytes", b)
}

func durationPart(m *policy.Manifest) string {
	if m.Limits.MaxDuration <= 0 {
		return ""
	}
	return " · max duration " + policy.FormatDuration(m.Limits.MaxDuration)
}

func auditPart(path string) string {
	if path == "" {
		return " · audit off"
	}
	return " · audit " + path
}
