package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals are the signals a person or a supervisor sends to stop a
// command.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// interrupts catches stopSignals from the start of main for a command that
// relays them to what it starts (run, exec), so that none is lost between
// main and the start: until the command claims them, each cancels the
// command's context (as signal.NotifyContext would; the command can still
// stop before starting anything), and a command that claims them after
// that learns of the signal instead of starting. After the claim they go
// to the claimed channel, to be relayed; until programStarted they also
// still cancel the context, since the start may wait on the user (the
// approval prompt), who must be able to stop it there.
type interrupts struct {
	mu      sync.Mutex
	claimed chan os.Signal
	running bool      // programStarted was called
	early   os.Signal // the first signal that came before the program started
	cancel  context.CancelFunc
}

type interruptsKey struct{}

// catchInterrupts starts catching stopSignals and returns ctx, cancelled by
// the first that comes before claimInterrupts, and the stop function.
func catchInterrupts(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{cancel: cancel}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, stopSignals...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				in.deliver(s)
			case <-done:
				return
			}
		}
	}()
	return context.WithValue(ctx, interruptsKey{}, in), func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// deliver hands s to the claimed channel, if any, and, before the program
// started, records it and cancels the command's context. A signal that
// comes as the start succeeds is thus both relayed and recorded; the
// record is only read when the start failed.
func (in *interrupts) deliver(s os.Signal) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.claimed != nil {
		select {
		case in.claimed <- s:
		default: // eight unrelayed signals are enough to act on
		}
	}
	if in.running {
		return
	}
	if in.early == nil {
		in.early = s
	}
	in.cancel()
}

// claim takes the signals over for relaying, or returns the signal that
// came before the claim: then nothing should be started.
func (in *interrupts) claim() (chan os.Signal, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.early != nil {
		return nil, &interruptedError{sig: in.early}
	}
	in.claimed = make(chan os.Signal, 8)
	return in.claimed, nil
}

// programStarted tells ctx's interrupts that the program runs: stop
// signals go on to it alone, no longer cancelling the command's context.
func programStarted(ctx context.Context) {
	if in, ok := ctx.Value(interruptsKey{}).(*interrupts); ok {
		in.mu.Lock()
		in.running = true
		in.mu.Unlock()
	}
}

// interruptedError is a stop signal that came before the command started
// anything.
type interruptedError struct{ sig os.Signal }

func (e *interruptedError) Error() string {
	return fmt.Sprintf("%s before the program started: nothing was started", signalText(e.sig))
}

// exitCode is 128+N, as if signal N had ended the program.
func (e *interruptedError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFailure
}

func signalText(s os.Signal) string {
	if n, ok := s.(syscall.Signal); ok {
		return fmt.Sprintf("signal %d (%s)", int(n), n)
	}
	return s.String()
}

// interruptSignals takes over the stop signals main caught for ctx's
// command (or starts catching them, for a ctx main did not make), before
// the command starts its program. It fails with an *interruptedError, to
// be returned as the command's exit, when one came already.
func interruptSignals(ctx context.Context) (chan os.Signal, error) {
	if in, ok := ctx.Value(interruptsKey{}).(*interrupts); ok {
		return in.claim()
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, stopSignals...)
	return sigs, nil
}

// interrupted is the command's exit for an *interruptedError.
func interrupted(err error) error {
	var ie *interruptedError
	if errors.As(err, &ie) {
		return exitWith(ie.exitCode(), err)
	}
	return err
}

// interruptedOr is the exit of a command whose step before the start
// failed: 128+N when stop signal N came first, since its cancelling of
// ctx is what cut the step short (a vault prompt, the sandbox's start),
// else failure. A signal is a stop request, not an agentbox failure (125).
func interruptedOr(ctx context.Context, failure error) error {
	if ie := earlyInterrupt(ctx); ie != nil {
		return interrupted(ie)
	}
	return failure
}

// earlyInterrupt is the *interruptedError of the stop signal main caught
// for ctx's command before its program started, nil when none came. Unlike claim it
// takes nothing over: exec --json never claims (the context's cancelling
// is what kills its command).
func earlyInterrupt(ctx context.Context) error {
	in, ok := ctx.Value(interruptsKey{}).(*interrupts)
	if !ok {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.early == nil {
		return nil
	}
	return &interruptedError{sig: in.early}
}

// signaller is what signals are relayed to: a sandboxed process or agent.
type signaller interface{ Signal(os.Signal) error }

// relaySignals passes what sigs catches on to to, until stop is called.
func relaySignals(sigs chan os.Signal, to signaller) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = to.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// survivePipeReaders handles SIGPIPE for the rest of the process: a reader
// of run's or exec's output that goes away (... | head) must not end
// agentbox by SIGPIPE before it has killed the tree, logged why and exited
// with the command's status (or 137, or 125 when agentbox could not deliver
// exec --json's result): with the signal handled, a write to a broken pipe
// fails instead. It is never undone, as main's own last words on stderr
// come after the command returns. (Handlers do not survive exec: the
// command gets SIGPIPE as usual.)
func survivePipeReaders() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
