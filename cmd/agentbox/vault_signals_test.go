package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestVaultPromptFailure: a vault prompt ended by stop signal N exits
// 128+N; any other failure to read the passphrase or value, or a prompt
// ended without a recorded signal, exits 1.
func TestVaultPromptFailure(t *testing.T) {
	interruptedPrompt := fmt.Errorf("%w; nothing was changed", errPromptInterrupted)
	tests := []struct {
		name string
		sig  os.Signal // delivered before the failure; nil: none
		err  error
		want int
	}{
		{"SIGINT at the prompt", syscall.SIGINT, interruptedPrompt, 130},
		{"SIGTERM at the prompt", syscall.SIGTERM, interruptedPrompt, 143},
		{"SIGHUP at the prompt", syscall.SIGHUP, interruptedPrompt, 129},
		{"SIGQUIT at the prompt", syscall.SIGQUIT, interruptedPrompt, 131},
		{"prompt ended, no signal recorded", nil, interruptedPrompt, exitFailure},
		{"other failure after a signal", syscall.SIGHUP, errors.New("empty vault passphrase"), exitFailure},
		{"other failure", nil, errors.New("no terminal"), exitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cancel := context.WithCancel(context.Background())
			defer cancel()
			in := &interrupts{cancel: cancel}
			if tt.sig != nil {
				in.deliver(tt.sig)
			}
			var ee *exitError
			err := vaultPromptFailure(withInterrupts(in), tt.err)
			if !errors.As(err, &ee) || ee.code != tt.want {
				t.Fatalf("vaultPromptFailure: %v, want exit %d", err, tt.want)
			}
		})
	}
}

// TestCatchesStopsCommand: main catches every stop signal for run, exec
// and all of vault's subcommands (their prompts turn echo off), by the
// command's top-level name; not for the others.
func TestCatchesStopsCommand(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"run", "--manifest", "m.yaml", "--", "true"}, true},
		{[]string{"exec", "--", "true"}, true},
		{[]string{"vault", "add", "NAME"}, true},
		{[]string{"vault", "list"}, true},
		{[]string{"vault", "test", "NAME"}, true},
		{[]string{"vault", "delete", "NAME"}, true},
		{[]string{"audit", "--log", "f"}, false},
		{[]string{"audit", "rotate", "--log", "f"}, false},
		{[]string{"verify", "f"}, false},
		{[]string{"version"}, false},
		{[]string{"nosuch"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := catchesStops[topCommandName(newRootCmd(), tt.args)]; got != tt.want {
			t.Errorf("%v: catches stop signals %v, want %v", tt.args, got, tt.want)
		}
	}
}
