// Command agentbox runs commands and whole AI agents inside kernel-enforced
// sandboxes. This package only parses flags and prints; the work is done by
// the library packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit statuses of agentbox itself (DESIGN.md, "CLI"). The exec and run
// commands otherwise exit with the status of the command they ran.
const (
	exitOK       = 0
	exitFailure  = 1   // generic failure of a non-exec command (validate, verify, vault, ...)
	exitInternal = 125 // agentbox itself failed: bad flags, invalid config, sandbox unavailable
	exitRefused  = 126 // refused by the classifier or by policy
	exitKilled   = 137 // agentbox killed the command: limit, timeout, kill switch
)

// exitError carries an exit status up to main. A nil err means the status is
// all there is to say (the message was printed already).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitWith wraps err so that main exits with code after printing it.
func exitWith(code int, err error) error { return &exitError{code: code, err: err} }

// usageError marks err as a usage mistake (unknown command, bad flag or
// argument). It exits 125 so that scripts never confuse it with a verdict such
// as "check" exiting 1 for an escalated command.
func usageError(err error) error { return exitWith(exitInternal, err) }

// commands holds the constructors of the top-level subcommands. Each
// subcommand lives in its own file and appends itself from an init function,
// so that adding a command never touches another command's file.
var commands []func() *cobra.Command

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "agentbox",
		Short: "Run AI agents and the commands they generate inside a sandbox",
		Long: `agentbox runs commands and whole AI agents inside kernel-enforced sandboxes:
namespaces, Landlock and seccomp on Linux, with a filtering egress proxy,
an encrypted credential vault and a tamper-evident audit log.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commandLineKey holds, in the commands' context, the command line run
// was given: a flag error handler may need the flags after the bad one.
type commandLineKey struct{}

// relaysSignals names the commands that relay stop signals to the program
// they start: main catches those signals for them from its start.
var relaysSignals = map[string]bool{"run": true, "exec": true}

// catchesStops names the commands main catches all of stopSignals for
// (catchInterrupts): those that relay them, and vault, whose prompts turn
// echo off: on any stop signal its context ends, readTerminal puts the
// terminal back and the command exits 128+N (vaultPromptFailure). The others
// (audit, verify, validate, check, doctor, ps, kill, version) keep Go's
// default for SIGHUP and SIGQUIT: they leave no terminal state behind and
// do not watch their context while reading a log or a file to its end, so
// catching those would turn a stop into a run to completion (and lose
// SIGQUIT's goroutine dump of a hung one).
var catchesStops = map[string]bool{"run": true, "exec": true, "vault": true}

// topCommandName is the name of the child of root that args run, or run a
// subcommand of: "vault" for "vault add NAME"; "" for none.
func topCommandName(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == root {
		return ""
	}
	for c.HasParent() && c.Parent() != root {
		c = c.Parent()
	}
	return c.Name()
}

// run executes the CLI with args and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	var ctx context.Context
	var stop func()
	if name := topCommandName(root, args); catchesStops[name] {
		ctx, stop = catchInterrupts(context.Background())
		if relaysSignals[name] {
			survivePipeReaders()
		}
	} else {
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}
	defer stop()
	ctx = context.WithValue(ctx, commandLineKey{}, args)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = usageError(err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "agentbox: %s\n", escapeLines(strings.TrimPrefix(ee.err.Error(), "agentbox: ")))
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "agentbox: %s\n", escapeLines(strings.TrimPrefix(err.Error(), "agentbox: ")))
	return exitFailure
}
