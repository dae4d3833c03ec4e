package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/agentbox-dev/agentbox"
)

// errPromptInterrupted is a prompt given up because its context ended: a
// stop signal before the program started (main cancels the command's
// context then, see interrupts).
var errPromptInterrupted = errors.New("interrupted")

// readTerminal prints the prompt (ask) and runs read, a blocking read of
// the terminal fd, and returns what it gives, unless ctx ends first: then
// it puts fd's modes back as they were before the read (a passphrase
// prompt turns echo off) and gives up with errPromptInterrupted. A read of
// a terminal cannot be cancelled: it is left behind, which is harmless
// only because every caller stops the command next, with nothing started.
//
// It runs with SIGTTIN and SIGTTOU ignored and stops agentbox itself while
// it is in the background (awaitForeground): a read or write that the
// kernel stopped would be retried by the kernel on SIGCONT, before the
// SIGTERM that came with it (bash's kill %1, timeout(1)) could end the
// prompt, and stop agentbox again, for good. A read that fails because
// agentbox went to the background meanwhile waits and asks again.
func readTerminal[T any](ctx context.Context, fd int, ask func(), read func() (T, error)) (T, error) {
	ignoreTerminalStops()
	for {
		if err := awaitForeground(ctx, fd); err != nil {
			var zero T
			return zero, err
		}
		ask()
		v, err := readOnce(ctx, fd, read)
		if err == nil || errors.Is(err, errPromptInterrupted) || terminalForeground(fd) {
			return v, err
		}
	}
}

// readOnce is one read of readTerminal.
func readOnce[T any](ctx context.Context, fd int, read func() (T, error)) (T, error) {
	var zero T
	if ctx.Err() != nil {
		return zero, errPromptInterrupted
	}
	state, err := term.GetState(fd)
	if err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		restoreChanged(fd, state)
		return zero, errPromptInterrupted
	}
}

// restoreChanged puts fd's modes back to state if they differ from it and
// agentbox is in the terminal's foreground process group: only there can
// the read have changed them, and in the background they are the
// foreground job's.
func restoreChanged(fd int, state *term.State) {
	if !terminalForeground(fd) {
		return
	}
	if now, err := term.GetState(fd); err == nil && *now == *state {
		return
	}
	_ = term.Restore(fd, state)
}

// contGrace is how long agentbox, continued in the background, waits for a
// stop signal sent with the SIGCONT (kill %1 sends SIGTERM first) to end
// the prompt before it stops again: the signal reaches ctx through a
// goroutine, after the SIGCONT returned control here.
const contGrace = time.Second

// discardedStop: a stop that returns sooner than this was not one (see
// awaitForeground); a real one lasts until someone continues agentbox.
const discardedStop = 50 * time.Millisecond

// errNoForeground refuses a prompt that agentbox cannot stop for: its
// process group is orphaned, so it can never be brought to the
// foreground.
var errNoForeground = errors.New("the prompt is in the background of a terminal whose shell has gone")

// awaitForeground returns once agentbox is in the foreground process group
// of the terminal fd, stopping it meanwhile as a background read would
// (stopForTerminal), or errPromptInterrupted when ctx ends first, or
// errNoForeground when the stop is discarded.
func awaitForeground(ctx context.Context, fd int) error {
	for !terminalForeground(fd) {
		select {
		case <-ctx.Done():
			return errPromptInterrupted
		case <-time.After(contGrace):
		}
		if terminalForeground(fd) {
			break
		}
		began := time.Now()
		stopForTerminal()
		if time.Since(began) < discardedStop && !terminalForeground(fd) && ctx.Err() == nil && !parentKeepsGroup() {
			// The kernel discards stop signals in an orphaned process
			// group (the parent that started agentbox has gone): no one
			// can bring the prompt to the foreground. Refuse, as the
			// background read's EIO did, rather than wait for ever. (A
			// real stop may be as short, continued at once: then the
			// parent, in another group of the session, keeps the group.)
			return errNoForeground
		}
	}
	if ctx.Err() != nil {
		return errPromptInterrupted
	}
	return nil
}

// askOnTerminal asks the person at the terminal about escalated commands.
// The prompt ends, refusing, when stop (the command's context: cancelled
// by a stop signal until the program starts) or the start's own context
// ends; the caller then exits 128+N (interruptedOr).
func askOnTerminal(stop context.Context, tty *os.File) agentbox.ApprovalCallback {
	return func(ctx context.Context, r agentbox.ApprovalRequest) (agentbox.ApprovalDecision, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(stop, cancel)()
		var answer string
		var err error
		withTerminalStops(func() {
			ask := func() {
				fmt.Fprintf(tty, "agentbox: %q needs approval (rule %s: %s). Run it? [y/N] ", r.Command, escapeControls(r.Result.Rule), escapeControls(r.Result.Reason))
			}
			answer, err = readTerminal(ctx, int(tty.Fd()), ask, func() (string, error) {
				var a string
				_, err := fmt.Fscanln(tty, &a)
				return a, err
			})
		})
		if errors.Is(err, errPromptInterrupted) {
			fmt.Fprintln(tty) // the prompt's line ends
			return agentbox.ApprovalDeny, err
		}
		if err != nil {
			return agentbox.ApprovalDeny, nil
		}
		if answer == "y" || answer == "Y" || answer == "yes" {
			return agentbox.ApprovalOnce, nil
		}
		return agentbox.ApprovalDeny, nil
	}
}
