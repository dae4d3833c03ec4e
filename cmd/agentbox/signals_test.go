package main

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestInterruptsClaim: a stop signal that comes before run or exec claims
// the signals cancels the context and makes the claim fail with 128+N (so
// nothing is started); one that comes after goes to the claimed channel,
// to be relayed, and until the program started also cancels the context
// (the approval prompt inside the start watches it) and is recorded for
// interruptedOr.
func TestInterruptsClaim(t *testing.T) {
	tests := []struct {
		name     string
		before   []os.Signal
		started  bool // programStarted before the signals after the claim
		after    []os.Signal
		wantCode int // 0: the claim succeeds
		// wantAfter is interruptedOr's exit after the claim: 128+N while
		// the program had not started, else the failure's (125).
		wantAfter int
	}{
		{"none", nil, false, nil, 0, exitInternal},
		{"after the claim, before the start", nil, false, []os.Signal{syscall.SIGTERM, syscall.SIGINT}, 0, 143},
		{"after the start", nil, true, []os.Signal{syscall.SIGTERM, syscall.SIGINT}, 0, exitInternal},
		{"SIGTERM before", []os.Signal{syscall.SIGTERM}, false, nil, 143, 0},
		{"SIGINT then SIGTERM before: the first counts", []os.Signal{syscall.SIGINT, syscall.SIGTERM}, false, nil, 130, 0},
		{"SIGHUP before", []os.Signal{syscall.SIGHUP}, false, nil, 129, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			in := &interrupts{cancel: cancel}
			cmdCtx := withInterrupts(in)
			for _, s := range tt.before {
				in.deliver(s)
			}
			sigs, err := in.claim()
			if tt.wantCode != 0 {
				var ie *interruptedError
				if !errors.As(err, &ie) || ie.exitCode() != tt.wantCode {
					t.Fatalf("claim: %v, want exit %d", err, tt.wantCode)
				}
				if ctx.Err() == nil {
					t.Errorf("the context was not cancelled by the early signal")
				}
				return
			}
			if err != nil {
				t.Fatalf("claim: %v", err)
			}
			if tt.started {
				programStarted(cmdCtx)
			}
			for _, s := range tt.after {
				in.deliver(s)
			}
			if cancelled := ctx.Err() != nil; cancelled != (len(tt.after) > 0 && !tt.started) {
				t.Errorf("context cancelled: %v, started %v, signals %v", cancelled, tt.started, tt.after)
			}
			var ee *exitError
			if err := interruptedOr(cmdCtx, exitWith(exitInternal, context.Canceled)); !errors.As(err, &ee) || ee.code != tt.wantAfter {
				t.Errorf("interruptedOr after the claim: %v, want exit %d", err, tt.wantAfter)
			}
			for _, want := range tt.after {
				if got := <-sigs; got != want {
					t.Errorf("relayed %v, want %v", got, want)
				}
			}
			if len(sigs) != 0 {
				t.Errorf("%d signals left unexpected", len(sigs))
			}
		})
	}
}

// TestInterruptedOr: a failure before the start is 128+N when a stop signal
// came first (it cancelled what failed), else the failure itself; the
// check takes nothing over.
func TestInterruptedOr(t *testing.T) {
	failure := exitWith(exitInternal, context.Canceled)
	tests := []struct {
		name     string
		ctx      func(*interrupts) context.Context
		before   []os.Signal
		wantCode int
	}{
		{"no interrupts (not run or exec)", func(*interrupts) context.Context { return context.Background() }, nil, exitInternal},
		{"no signal came", withInterrupts, nil, exitInternal},
		{"SIGTERM came", withInterrupts, []os.Signal{syscall.SIGTERM}, 143},
		{"SIGINT then SIGQUIT: the first counts", withInterrupts, []os.Signal{syscall.SIGINT, syscall.SIGQUIT}, 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cancel := context.WithCancel(context.Background())
			defer cancel()
			in := &interrupts{cancel: cancel}
			for _, s := range tt.before {
				in.deliver(s)
			}
			err := interruptedOr(tt.ctx(in), failure)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != tt.wantCode {
				t.Fatalf("interruptedOr: %v, want exit %d", err, tt.wantCode)
			}
			if in.claimed != nil {
				t.Errorf("interruptedOr claimed the signals")
			}
		})
	}
}

func withInterrupts(in *interrupts) context.Context {
	return context.WithValue(context.Background(), interruptsKey{}, in)
}
