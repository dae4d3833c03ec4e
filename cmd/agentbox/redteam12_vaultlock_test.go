//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam12VaultLockPlanted: a vault kept in the agent's writable
// directory (the setup TestRunHidesTheVaultAndPassphrase supports) is
// hidden from the agent, but its lock file (vault.json.lock, beside it) is
// not: the agent replaces it with a symbolic link to a path of its choice
// outside every writable root. The operator's next `agentbox vault add`
// opens the lock with O_CREATE through the link (vault/write.go withLock)
// and creates that file, as the operator (root: /etc/nologin, any path).
// The attack must fail: no file appears at the link's target. The control:
// the add itself succeeds and the agent's own file in the directory is
// written.
//
// Fixed: the lock is among the files a run hides (the agent's rm fails),
// and the vault opens its lock without following a link (vault's
// TestLockNeverFollowed).
func TestRedteam12VaultLockPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		attack bool
	}{
		{"control_own_file", false},
		{"attack_lock_symlink", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnv(t)
			dir := t.TempDir()
			outside := t.TempDir()
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			vaultFile := filepath.Join(dir, "vault.json")
			target := filepath.Join(outside, "created-by-operator")
			const pass, secret = "correct horse battery", "tok-12b0a7c3"
			writeVault(t, vaultFile, pass, "API_KEY", secret)
			// The lock file exists once the vault has been written to.
			if _, err := os.Stat(vaultFile + ".lock"); err != nil {
				t.Fatalf("setup: no lock file beside the vault: %v", err)
			}
			manifest := filepath.Join(dir, "agent.yaml")
			src := "name: vault-lock\npermissions:\n  filesystem: {write: [.]}\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
			if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			script := "echo ok > " + dir + "/own && echo OWN"
			if tc.attack {
				script += "; rm -f " + vaultFile + ".lock && ln -s " + target + " " + vaultFile + ".lock && echo PLANTED"
			}
			t.Setenv("AGENTBOX_VAULT_PASSPHRASE", pass)
			code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--vault", vaultFile,
				"--approve", "--", "/bin/sh", "-c", script)
			if (!tc.attack && code != 0) || !strings.Contains(out, "OWN") {
				t.Fatalf("control: the agent's run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			t.Logf("agent: %s", strings.TrimSpace(out))

			// The operator rotates the credential afterwards.
			code, _, errOut = vaultCLI(t, "tok-rotated", "vault", "add", "API_KEY", "--vault", vaultFile)
			if !tc.attack && code != 0 {
				t.Fatalf("control: vault add: exit %d, stderr %q", code, errOut)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("ESCAPE: the agent's planted lock link made the operator's `vault add` create %s outside every writable root (add exit %d)", target, code)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "own")); err != nil || string(b) != "ok\n" {
				t.Errorf("control: the agent's own file: %q, %v", b, err)
			}
		})
	}
}
