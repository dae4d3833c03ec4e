//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam28SignalDuringVaultPrompt: `agentbox run` of a manifest with
// credentials prompts for the vault passphrase on the terminal; the user
// presses ^C (SIGINT) or a supervisor sends SIGTERM at the prompt. Nothing
// was started, so README's contract ("128+N when ... agentbox got stop
// signal N ... before it started the command, which then never starts")
// wants 130 / 143, as a signal at any other moment before the start gives
// (interruptedError). The prompt instead returns "interrupted; nothing was
// changed" as a vault error, and run maps it to 125 ("agentbox itself
// failed: bad flags, invalid config, sandbox unavailable"): a supervisor or
// script sees an agentbox failure, not the stop it asked for (and may
// retry the run it meant to stop). Control: the same run given the
// passphrase on the prompt runs the agent (exit 0).
//
// Severity: low (nothing runs; only the status contract breaks).
// Fix: runAgent (and vault commands) should map a vault prompt ended by a
// caught stop signal to interrupted(): e.g. check the interrupts' early
// signal (claim) when openForRun fails with the context cancelled.
//
// Fixed: runAgent maps openForRun's failure after an early stop signal to
// interruptedOr (signals.go): 128+N. (The vault commands too, since
// red-team 31: vaultPromptFailure.)
func TestRedteam28SignalDuringVaultPrompt(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass = "correct horse battery"
	writeVault(t, vaultFile, pass, "API_KEY", "tok-rt28")
	manifest := filepath.Join(dir, "agent.yaml")
	src := "name: rt28-prompt\npermissions:\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", "")
	os.Unsetenv("AGENTBOX_VAULT_PASSPHRASE")
	argv := []string{"run", "--manifest", manifest, "--vault", vaultFile, "--approve", "--", "/bin/sh", "-c", "exit 0"}

	status := func(u *userTerminal) (int, string) {
		done := make(chan error, 1)
		go func() { done <- u.cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			_ = u.cmd.Process.Kill()
			t.Fatal("agentbox run still running 30s after the prompt")
		}
		var ee *exec.ExitError
		if err == nil {
			return 0, ""
		}
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			return 128 + int(ws.Signal()), " (died of the signal)"
		}
		return ws.ExitStatus(), ""
	}
	drain := func(u *userTerminal) string {
		var got []string
		for more := true; more; {
			select {
			case l, ok := <-u.lines:
				if !ok {
					more = false
				}
				got = append(got, l)
			case <-time.After(300 * time.Millisecond):
				more = false
			}
		}
		return strings.Join(got, "\n")
	}

	// Control: the passphrase typed at the prompt.
	u := startOnTerminal(t, "1", argv...)
	time.Sleep(3 * time.Second)
	if _, err := u.master.Write([]byte(pass + "\r")); err != nil {
		t.Fatal(err)
	}
	if code, how := status(u); code != 0 {
		t.Fatalf("control: exit %d%s, terminal %q", code, how, drain(u))
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		u := startOnTerminal(t, "1", argv...)
		time.Sleep(3 * time.Second) // at the prompt
		_ = u.cmd.Process.Signal(sig)
		code, how := status(u)
		if code != 128+int(sig) {
			t.Errorf("%v at the vault prompt: exit %d%s, want %d (nothing started); terminal %q", sig, code, how, 128+int(sig), drain(u))
		}
	}
}
