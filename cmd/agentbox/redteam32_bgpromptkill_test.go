//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam32KillStoppedBackgroundPrompt: a prompt of agentbox's own on
// the terminal (the approval prompt of `agentbox exec`/`run`, run with
// SIGTTIN/SIGTTOU at their default by withTerminalStops; the vault
// passphrase prompt) in a background job stops agentbox on SIGTTIN, as
// designed ("stops until brought to the foreground"). The user (bash's
// `kill %1`) or a supervisor (timeout(1), which runs its child in a
// background process group and sends SIGTERM then SIGCONT) then ends the
// job: SIGTERM and SIGCONT. The stop signal cancels the prompt's context
// (interrupts.deliver), and readTerminal, to give up, restores the
// terminal's modes with term.Restore: a TCSETS from a background process
// group, for which the kernel sends SIGTTOU, still at its default there
// (and, for the vault, never caught at all): agentbox stops again, and on
// every later SIGCONT it retries the ioctl and stops again. The job never
// ends on SIGTERM (nor SIGINT/SIGHUP): it hangs stopped until someone
// brings it to the foreground or SIGKILLs it (timeout(1) without -k waits
// for ever). Nothing is started, and the vault is unchanged: the damage is
// a hang, and a killed job that does not die.
//
// Control: the same SIGTERM at the same prompts in the foreground makes
// agentbox exit 143 at once with nothing started.
//
// Severity: low (a hang; no command runs, no terminal damage).
// Fix: readTerminal must not stop on its restore: give up without touching
// the terminal when agentbox is not in the terminal's foreground process
// group (tcgetpgrp != getpgrp: the read never got to change the modes),
// or block/ignore SIGTTOU around the Restore. The same holds for every
// terminal access after the stop signal while SIGTTIN/SIGTTOU are at their
// default (the prompt's own write on a tostop terminal, the newline
// askOnTerminal and ReadSecret print after the interrupted read): once the
// context has ended, agentbox must reach its exit without a job-control
// stop. (Found with TestRedteam32KillStoppedBackgroundPrompt: root and
// agentbox-ci, with -race and under load; the stuck thread is in
// ioctl(TCSETS).)
// Fixed: readTerminal runs the prompt (its write too) and the read with
// SIGTTIN/SIGTTOU ignored and, in the background, stops agentbox itself
// with a kill (stopForTerminal) that returns to it on SIGCONT, waiting
// contGrace for the signal sent with it before stopping again; on the
// context's end it restores only modes that changed, and only in the
// foreground (restoreChanged), so nothing the kernel retries can stop it.
func TestRedteam32KillStoppedBackgroundPrompt(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass = "correct horse battery"
	writeVault(t, vaultFile, pass, "OLD_KEY", "tok-rt32")
	os.Unsetenv(vaultPassphraseEnv)
	manifest := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(manifest, []byte("name: rt32-bgprompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `echo RAN-rt32-$((6*7)); git push 2>/dev/null; exit 0`
	for _, tc := range []struct {
		name   string
		prompt string
		argv   []string
	}{
		{"exec", "Run it? [y/N]", []string{"exec", "-c", script}},
		{"run", "Run it? [y/N]", []string{"run", "--manifest", manifest, "--", "/bin/sh", "-c", script}},
		{"vault_add", "Vault passphrase:", []string{"vault", "add", "API_KEY", "--vault", vaultFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.ReadFile(vaultFile)
			if err != nil {
				t.Fatal(err)
			}
			// Control: SIGTERM at the prompt in the foreground: 143.
			tm := startSession(t, false, tc.argv...)
			if !tm.waitFor(tc.prompt, 30*time.Second) {
				t.Fatalf("control: no prompt; terminal %q", tm.shown())
			}
			time.Sleep(300 * time.Millisecond) // the read has begun
			_ = tm.cmd.Process.Signal(syscall.SIGTERM)
			if code, ok := tm.status(t, 15*time.Second); !ok || code != 143 {
				t.Fatalf("control: SIGTERM at the foreground prompt: ended %v, exit %d, want 143; terminal %q", ok, code, tm.shown())
			}

			// Attack: the same prompt in a background job, ended as
			// bash's kill %1 or timeout(1) end a job.
			b := startBackground(t, backgroundLauncher, tc.argv...)
			pid, out := b.pid, b.out
			t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
			stopped := false
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if st := procState(strconv.Itoa(pid)); st == "T" || st == "t" {
					stopped = true
					break
				}
			}
			if !stopped {
				t.Fatalf("the background prompt did not stop agentbox (state %q); terminal %q", procState(strconv.Itoa(pid)), out.String())
			}
			// kill %1: SIGTERM, then SIGCONT for a stopped job.
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			_ = syscall.Kill(-pid, syscall.SIGCONT)
			if code, ok := b.launcherExit(t, 6*time.Second); !ok {
				t.Errorf("SIGTERM+SIGCONT (kill %%1) at the stopped background prompt: agentbox still there 6s later, state %q, in syscalls %v (want exit 143, nothing started); terminal %q",
					procState(strconv.Itoa(pid)), rt32Syscalls(pid), out.String())
			} else if code != 143 {
				t.Errorf("SIGTERM at the background prompt: exit %d, want 143; terminal %q", code, out.String())
			}
			if strings.Contains(out.String(), "RAN-rt32-42") {
				t.Errorf("the command ran; terminal %q", out.String())
			}
			if after, err := os.ReadFile(vaultFile); err != nil || string(after) != string(before) {
				t.Errorf("the vault changed (%v)", err)
			}
		})
	}
}

// rt32Syscalls lists the syscall numbers (and first argument) pid's
// threads are in: 16 with 0x5402 is ioctl(TCSETS), 0 a read.
func rt32Syscalls(pid int) []string {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/syscall")
	var out []string
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		if w := strings.Fields(string(b)); len(w) >= 3 && w[0] != "running" && w[0] != "202" {
			out = append(out, w[0]+"("+w[1]+","+w[2]+")")
		}
	}
	return out
}
