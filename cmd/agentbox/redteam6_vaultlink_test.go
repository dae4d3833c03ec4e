//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam6VaultThroughLink: run hides the vault and the passphrase
// file from the agent (vaultFlags.secretFiles into Options.Secrets). Named
// through a symbolic link (a dotfiles setup: ~/.config/agentbox/pass
// pointing into a synced folder), the files are still where their
// contents are, and the agent must not read them there either. The
// control: named directly, they are hidden, and the rest of the directory
// is the agent's own.
func TestRedteam6VaultThroughLink(t *testing.T) {
	for _, viaLink := range []bool{false, true} {
		name := "direct"
		if viaLink {
			name = "link"
		}
		t.Run(name, func(t *testing.T) {
			runEnv(t)
			dir := t.TempDir()
			realVault := filepath.Join(dir, "real", "vault.json")
			realPass := filepath.Join(dir, "real", "passphrase")
			const pass, secret = "correct horse battery", "tok-6a0c11e7"
			writeVault(t, realVault, pass, "API_KEY", secret)
			if err := os.WriteFile(realPass, []byte(pass+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// Beside them, a file of the same mode the agent may read.
			if err := os.WriteFile(filepath.Join(dir, "real", "other"), []byte("OTHER\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			vaultArg, passArg := realVault, realPass
			if viaLink {
				links := filepath.Join(t.TempDir(), "links")
				if err := os.Mkdir(links, 0o700); err != nil {
					t.Fatal(err)
				}
				vaultArg, passArg = filepath.Join(links, "vault.json"), filepath.Join(links, "passphrase")
				if err := os.Symlink(realVault, vaultArg); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(realPass, passArg); err != nil {
					t.Fatal(err)
				}
			}
			manifest := filepath.Join(dir, "agent.yaml")
			src := "name: vault-link\npermissions:\n  filesystem: {write: [.]}\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
			if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			script := "cat " + realPass + " && echo READ-PASS; head -c 20 " + realVault + " && echo READ-VAULT; echo ok > " + dir + "/own && echo OWN; cat " + dir + "/real/other"
			code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--vault", vaultArg, "--passphrase-file", passArg,
				"--approve", "--", "/bin/sh", "-c", script)
			t.Logf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
			if strings.Contains(out, "READ-") || strings.Contains(out, pass) {
				t.Errorf("ESCAPE: the agent read the vault or the passphrase its credentials come from (named through a link: %v):\n%s", viaLink, out)
			}
			if code != 0 || !strings.Contains(out, "OWN") || !strings.Contains(out, "OTHER") {
				t.Errorf("control: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
