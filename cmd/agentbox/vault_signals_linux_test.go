//go:build linux

package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestVaultPromptStopSignalStatus: each stop signal at `vault add`'s
// hidden value prompt ends it with 128+N, the terminal's echo back on,
// as run does at its own vault prompt.
func TestVaultPromptStopSignalStatus(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass = "correct horse battery"
	writeVault(t, vaultFile, pass, "OLD_KEY", "tok-vps")
	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", pass)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		u := startOnTerminal(t, "1", "vault", "add", "API_KEY", "--vault", vaultFile)
		go func() {
			for range u.lines {
			}
		}()
		waitEchoOff(t, u.fd)
		time.Sleep(500 * time.Millisecond) // the read has begun
		_ = u.cmd.Process.Signal(sig)
		err := u.waitExit(t, 30*time.Second, fmt.Sprintf("%v: vault add still running 30s after the signal", sig))
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%v: vault add: %v, want exit %d", sig, err, 128+int(sig))
		}
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 128+int(sig) {
			t.Errorf("%v: vault add ended %v, want exit %d", sig, ee, 128+int(sig))
		}
		tio, gerr := unix.IoctlGetTermios(u.fd, unix.TCGETS)
		if gerr != nil {
			t.Fatal(gerr)
		}
		if tio.Lflag&unix.ECHO == 0 {
			t.Errorf("%v: echo left off", sig)
		}
	}
}

// waitEchoOff waits until the terminal fd has echo off: a hidden prompt.
func waitEchoOff(t *testing.T, fd int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the hidden prompt never came")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
