//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// writeVault creates the vault file with one credential, with cheap key
// derivation.
func writeVault(t *testing.T, file, pass, name, value string) {
	t.Helper()
	v, err := vault.Create(file, []byte(pass), vault.WithKDFParams(vault.KDFParams{Time: 1, MemoryKiB: 64, Threads: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.Put(name, []byte(value)); err != nil {
		t.Fatal(err)
	}
}

// A manifest's credentials come from the vault: the agent's environment
// holds a placeholder, never the value; without the vault's passphrase the
// run is refused before anything starts.
func TestRunCredentialsFromVault(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault", "vault.json")
	const pass, secret = "correct horse battery", "tok-5d1e8a0b"
	writeVault(t, vaultFile, pass, "API_KEY", secret)
	manifest := filepath.Join(dir, "agent.yaml")
	src := "name: cred-agent\npermissions:\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{"run", "--manifest", manifest, "--vault", vaultFile, "--approve", "--", "/bin/sh", "-c", `echo "key=$API_KEY"`}

	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", pass)
	code, out, errOut := runCLI(t, argv...)
	if code != 0 || !strings.HasPrefix(out, "key=agentbox-placeholder-API_KEY-") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Fatal("the value reached the agent or the terminal")
	}

	t.Setenv("AGENTBOX_VAULT_PASSPHRASE", "wrong")
	code, out, errOut = runCLI(t, argv...)
	if code != exitInternal || out != "" || !strings.Contains(errOut, "wrong vault passphrase") {
		t.Fatalf("wrong passphrase: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

// TestRunHidesTheVaultAndPassphrase: a vault and a passphrase file kept in
// the agent's own writable directory (where a project might keep them) are
// where its credentials come from: together they give every value. The
// agent reads neither, while the rest of the directory is its own.
func TestRunHidesTheVaultAndPassphrase(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	vaultFile := filepath.Join(dir, "vault.json")
	passFile := filepath.Join(dir, "passphrase")
	const pass, secret = "correct horse battery", "tok-77c1f0a2"
	writeVault(t, vaultFile, pass, "API_KEY", secret)
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "agent.yaml")
	src := "name: vault-reader\npermissions:\n  filesystem: {write: [.]}\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "cat " + passFile + " && echo READ-PASS; head -c 20 " + vaultFile + " && echo READ-VAULT; echo ok > " + dir + "/own && echo OWN"
	code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--vault", vaultFile, "--passphrase-file", passFile,
		"--approve", "--", "/bin/sh", "-c", script)
	if strings.Contains(out, "READ-") || strings.Contains(out, pass) {
		t.Errorf("ESCAPE: the agent read where its credentials come from:\n%s", out)
	}
	if code != 0 || !strings.Contains(out, "OWN") {
		t.Errorf("control: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
