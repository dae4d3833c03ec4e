package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/agentbox-dev/agentbox"
)

// errPromptInterrupted is a prompt given up because its context ended: a
// stop signal before the program started (main cancels the command's
// context then, see interrupts).
var errPromptInterrupted = errors.New("interrupted")

// readTerminal runs read, a blocking read of the terminal fd, and returns
// what it gives, unless ctx ends first: then it puts fd's modes back as
// they were before the read (a passphrase prompt turns echo off) and gives
// up with errPromptInterrupted. A read of a terminal cannot be cancelled:
// it is left behind, which is harmless only because every caller stops
// the command next, with nothing started.
func readTerminal[T any](ctx context.Context, fd int, read func() (T, error)) (T, error) {
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
		_ = term.Restore(fd, state)
		return zero, errPromptInterrupted
	}
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
			fmt.Fprintf(tty, "agentbox: %q needs approval (rule %s: %s). Run it? [y/N] ", r.Command, r.Result.Rule, r.Result.Reason)
			answer, err = readTerminal(ctx, int(tty.Fd()), func() (string, error) {
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
