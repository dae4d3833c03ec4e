//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam13VaultDirReplaced: the operator names the vault and its
// passphrase file by paths in the agent's writable root (the setup
// TestRunHidesTheVaultAndPassphrase supports), here in a subdirectory
// .secrets. A run hides both files, but an agent that may write the
// directory tries to swap the directory they are found through for one of
// its own, holding a vault and passphrase it made itself:
//
//   - plain: .secrets is a directory; the agent renames it (held: the
//     directories between a writable root and a hidden file are pinned).
//   - link_in_root / link_outside: .secrets is a symbolic link (a monorepo
//     or a dotfile manager shares the directory), to a directory inside the
//     writable root or outside it. The run hides the files at the link's
//     target, but not the link: the agent replaces it.
//
// After the swap the operator's next run with the same command line starts
// silently on the attacker's vault (credential values the attacker chose),
// and nothing hides the operator's real passphrase and vault any more: that
// run's agent reads them (and so decrypts every credential). The attack
// must fail: the operator's paths still lead to the operator's passphrase,
// and no later run reads it. The control: the agent writes its own files
// in the writable root and the second run starts.
//
// Fixed: a run refuses a secret file named through a symbolic link that
// lies in a writable root (SecretLinkError, as for the manifest), with
// the real path to name instead; named so, the files are hidden where
// they are and the directories on their way pinned.
func TestRedteam13VaultDirReplaced(t *testing.T) {
	const pass, secret = "correct horse battery", "tok-13c0ffee"
	const evilPass, evilValue = "attacker passphrase", "tok-attacker"
	// The attacker's own vault, made with a passphrase it knows; its bytes
	// are written by the agent's script.
	evilVault := filepath.Join(t.TempDir(), "evil.json")
	writeVault(t, evilVault, evilPass, "API_KEY", evilValue)
	evilBytes, err := os.ReadFile(evilVault)
	if err != nil || strings.Contains(string(evilBytes), "'") {
		t.Fatalf("setup: %v", err)
	}
	for _, tc := range []struct {
		name   string
		layout string // plain, link_in_root, link_outside
		attack bool
	}{
		{"control_plain", "plain", false},
		{"attack_plain_rename", "plain", true},
		{"control_link_in_root", "link_in_root", false},
		{"attack_link_in_root", "link_in_root", true},
		{"control_link_outside", "link_outside", false},
		{"attack_link_outside", "link_outside", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnv(t)
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			secrets := filepath.Join(dir, ".secrets")
			var real string // where the files really are
			switch tc.layout {
			case "plain":
				real = secrets
			case "link_in_root":
				real = filepath.Join(dir, "tools", "secrets")
			case "link_outside":
				// Outside /tmp, which the sandbox replaces with its own.
				out, err := os.MkdirTemp("/var/tmp", "r13c-vault-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(out) })
				if err := os.Chmod(out, 0o755); err != nil {
					t.Fatal(err)
				}
				real = filepath.Join(out, "secrets")
			}
			if err := os.MkdirAll(real, 0o755); err != nil {
				t.Fatal(err)
			}
			if real != secrets {
				if err := os.Symlink(real, secrets); err != nil {
					t.Fatal(err)
				}
			}
			vaultFile := filepath.Join(secrets, "vault.json")
			passFile := filepath.Join(secrets, "pass")
			// Made through the real path (vault.Create refuses a directory
			// that is a link), then named through the link.
			writeVault(t, filepath.Join(real, "vault.json"), pass, "API_KEY", secret)
			if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			manifest := filepath.Join(dir, "agent.yaml")
			src := "name: vault-dir\npermissions:\n  filesystem: {write: [.]}\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"
			if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(script string) (int, string, string) {
				return runCLI(t, "run", "--manifest", manifest, "--vault", vaultFile, "--passphrase-file", passFile,
					"--approve", "--", "/bin/sh", "-c", script)
			}
			if real != secrets {
				// Named through a link the agent may replace: refused, in
				// one line that names the real path, before anything runs.
				code, out, errOut := run("echo RAN")
				if code != 125 || strings.Contains(out, "RAN") || strings.Count(errOut, "\n") != 1 ||
					!strings.Contains(errOut, "name it by its real path, "+filepath.Join(real, "vault.json")) {
					t.Fatalf("a vault named through the link %s: exit %d, stdout %q, stderr %q; want 125 and one line naming the real path", secrets, code, out, errOut)
				}
				// The operator does as it says.
				vaultFile, passFile = filepath.Join(real, "vault.json"), filepath.Join(real, "pass")
			}

			script1 := "cd " + dir + " && echo ok > own && echo OWN"
			stolen := real
			if tc.attack {
				forge := "mkdir .secrets && printf '%s' '" + string(evilBytes) + "' > .secrets/vault.json && echo '" + evilPass + "' > .secrets/pass && echo SWAPPED"
				if tc.layout == "plain" {
					script1 += "; mv .secrets .stolen && " + forge
					stolen = filepath.Join(dir, ".stolen")
				} else {
					script1 += "; rm .secrets && " + forge
				}
			}
			code, out, errOut := run(script1)
			t.Logf("first run: exit %d, stdout %q, stderr %q", code, out, errOut)
			if !strings.Contains(out, "OWN") || (!tc.attack && code != 0) {
				t.Fatalf("control: first run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "own")); err != nil || string(b) != "ok\n" {
				t.Errorf("control: the agent's own file: %q, %v", b, err)
			}

			script2 := "cat " + stolen + "/pass 2>&1; echo SECOND"
			code, out, errOut = run(script2)
			t.Logf("second run: exit %d, stdout %q, stderr %q", code, out, errOut)
			if strings.Contains(out, pass) {
				t.Errorf("ESCAPE: the second run's agent read the operator's vault passphrase at %s:\n%s", stolen, out)
			}
			if b, err := os.ReadFile(passFile); err != nil || strings.TrimSpace(string(b)) != pass {
				t.Errorf("ESCAPE: after the first run the operator's passphrase file %s holds %q (%v): the agent replaced what it is found through", passFile, b, err)
			}
			if tc.attack && code == 0 && strings.Contains(out, "SECOND") && tc.layout != "plain" {
				t.Logf("the operator's second run started silently on the vault and passphrase found through %s", secrets)
			}
			if !tc.attack && (code != 0 || !strings.Contains(out, "SECOND")) {
				t.Errorf("control: second run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
