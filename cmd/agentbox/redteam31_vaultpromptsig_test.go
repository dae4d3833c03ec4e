//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRedteam31VaultPromptHangupLeavesEchoOff: `agentbox vault add NAME`
// on a terminal reads the value with echo off (readTerminal around
// term.ReadPassword). Its context is signal.NotifyContext(SIGINT,
// SIGTERM) only (main.go: catchInterrupts, which also catches SIGHUP and
// SIGQUIT, is for run and exec alone). So a SIGQUIT (the user's ^\, a
// key: ReadPassword leaves ISIG on) or a SIGHUP from a supervisor at the
// hidden prompt takes Go's default action: agentbox dies at once (a
// goroutine dump on the terminal for ^\), no deferred restore runs, and
// the user's terminal is left with echo off: what they type next (maybe
// the secret again, on a retry) is invisible, and commands typed blind.
// Run's own vault prompt, with the same readTerminal, restores the modes
// on all four stop signals; the vault commands do for SIGINT/SIGTERM only.
//
// Controls: SIGINT at the same prompt restores the terminal (readTerminal
// restores on the cancelled context) and exits; SIGHUP at `agentbox run`'s
// vault passphrase prompt restores it and exits 129.
//
// Severity: low (terminal hygiene; nothing is stored, no secret leaks).
// Fix: the vault commands (and every command that prompts with
// readTerminal) should cancel their context on all of stopSignals, e.g.
// signal.NotifyContext(ctx, stopSignals...) in main for every command.
//
// Fixed: main catches all of stopSignals for vault as for run and exec
// (catchesStops, catchInterrupts): the prompt's context ends, readTerminal
// restores the terminal, and the vault command exits 128+N
// (vaultPromptFailure). Commands without prompts keep Go's default.
func TestRedteam31VaultPromptHangupLeavesEchoOff(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass = "correct horse battery"
	writeVault(t, vaultFile, pass, "OLD_KEY", "tok-rt31")
	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", pass)
	argv := []string{"vault", "add", "API_KEY", "--vault", vaultFile}

	try := func(sig syscall.Signal, argv ...string) (echoOff bool, how string) {
		u := startOnTerminal(t, "1", argv...)
		go func() {
			for l := range u.lines {
				_ = l
			}
		}()
		waitEchoOff(t, u.fd)
		time.Sleep(500 * time.Millisecond) // the read has begun
		_ = u.cmd.Process.Signal(sig)
		err := u.waitExit(t, 30*time.Second, fmt.Sprintf("%v: %s still running 30s after the signal", sig, argv[0]))
		how = "exit 0"
		if ee, ok := err.(*exec.ExitError); ok {
			ws := ee.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				how = "died of " + ws.Signal().String()
			} else {
				how = "exit " + strings.TrimPrefix(ee.Error(), "exit status ")
			}
		}
		after, gerr := unix.IoctlGetTermios(u.fd, unix.TCGETS)
		if gerr != nil {
			t.Fatal(gerr)
		}
		return after.Lflag&unix.ECHO == 0, how
	}

	// Control: ^C at the prompt puts echo back.
	if off, how := try(syscall.SIGINT, argv...); off {
		t.Fatalf("control: SIGINT at the vault value prompt left echo off (%s)", how)
	}
	// Control: run's passphrase prompt (same readTerminal, but main catches
	// all stop signals for run) restores echo on SIGHUP and exits 129.
	manifest := filepath.Join(dir, "agent.yaml")
	src := "name: rt31-prompt\npermissions:\n  network: {allow: [api.example.com]}\n  credentials: [OLD_KEY]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("AGENTBOX_VAULT_PASSPHRASE")
	runArgv := []string{"run", "--manifest", manifest, "--vault", vaultFile, "--approve", "--", "/bin/sh", "-c", "exit 0"}
	if off, how := try(syscall.SIGHUP, runArgv...); off || how != "exit 129" {
		t.Fatalf("control: SIGHUP at run's vault prompt: %s, echo off %v (want exit 129, echo restored)", how, off)
	}
	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", pass)
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGHUP} {
		if off, how := try(sig, argv...); off {
			t.Errorf("%v at the vault value prompt: agentbox %s and left the user's terminal with echo off", sig, how)
		}
	}
}
