package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam48PassphraseFileReadByOtherAgent: `run --vault FILE
// --passphrase-file FILE` is the documented way to keep a vault, and its
// passphrase, where a project keeps them (TestRunHidesTheVaultAndPassphrase
// shows the run that names them hides both from its own agent). But they
// are hidden only from that one run: every other sandbox, another agent's
// `run` (a manifest without credentials, started without --vault) or a plain
// `agentbox exec` under the default policy, reads the passphrase file as it
// would any other file, and with it (and the vault, which as the user's own
// uid it reads too) every credential of the vault in the clear. DESIGN.md
// promises credentials "the agent never sees in the clear" and a default
// deny set holding agentbox's vault; here agentbox itself was told where
// the vault and its passphrase are, and forgets it after the run.
//
// Attack: operator stores the passphrase in /proj/secrets/vault-pass (as
// `echo … > file` makes it, mode 0644) and runs agent A with --vault and
// --passphrase-file; a second agent B of the same project, run without
// those flags, runs `cat /proj/secrets/vault-pass` and prints it; the
// printed text opens the vault and gives API_KEY's value.
//
// Why it works: cmd/agentbox/vault.go:vaultFlags.secretFiles lists the
// vault and passphrase file of this invocation's flags only (the default
// vault path when none is given), supervise/agent.go:prepare adds just
// those to DenyRead, and agentbox.DefaultDenyRead (config.go) knows only
// the state and data directories: no record of the vaults and passphrase
// files agentbox has used is kept (unlike granted-writable-roots), so
// `exec` and other runs do not deny them.
//
// Severity: high (a secret read: the vault passphrase, and with it every
// credential). Found by red-team round 48. Fixed: the vaults and passphrase
// files agentbox is handed are recorded (internal/keptfiles), and every
// sandbox of the user is denied them.
func TestRedteam48PassphraseFileReadByOtherAgent(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	secrets := filepath.Join(proj, "secrets")
	if err := os.Mkdir(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	vaultFile := filepath.Join(secrets, "vault.json")
	passFile := filepath.Join(secrets, "vault-pass")
	const pass, secret = "rt48a-pass-horse-battery", "rt48a-tok-5e11b0c2"
	writeVault(t, vaultFile, pass, "API_KEY", secret)
	// What `echo "$PASS" > vault-pass` leaves under the usual umask.
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(passFile, 0o644); err != nil {
		t.Fatal(err)
	}
	ordinary := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(ordinary, []byte("rt48a-ordinary\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Premise: the passphrase file opens the vault and gives the value.
	rt48aCheckUnlocks(t, vaultFile, pass, secret)

	// Control: agent A, run with the vault and its passphrase file, reads
	// neither (as agentbox promises), and reads the project's other files.
	manA := filepath.Join(proj, "a.yaml")
	if err := os.WriteFile(manA, []byte("name: rt48a-cred-agent\npermissions:\n  network: {allow: [api.example.com]}\n  credentials: [API_KEY]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "cat " + passFile + " && echo READ-PASS; cat " + ordinary
	code, out, errOut := runCLI(t, "run", "--manifest", manA, "--vault", vaultFile, "--passphrase-file", passFile,
		"--approve", "--", "/bin/sh", "-c", script)
	if strings.Contains(out, pass) || strings.Contains(out, "READ-PASS") {
		t.Fatalf("control: the credentialed agent itself read its passphrase file: %q", out)
	}
	if code != 0 || !strings.Contains(out, "rt48a-ordinary") {
		t.Fatalf("control: agent A: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// Attack 1: agent B of the same project, with no credentials of its own.
	manB := filepath.Join(proj, "b.yaml")
	if err := os.WriteFile(manB, []byte("name: rt48a-other-agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "run", "--manifest", manB, "--approve", "--", "/bin/sh", "-c",
		"cat "+passFile+"; cat "+ordinary)
	if code != 0 || !strings.Contains(out, "rt48a-ordinary") {
		t.Fatalf("control: agent B: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := rt48aLeakedPass(out); got != "" {
		rt48aCheckUnlocks(t, vaultFile, got, secret)
		t.Errorf("LEAK: agent B (run without --vault) read the vault passphrase %q from %s; it opens the vault and gives API_KEY", got, passFile)
	}

	// Attack 2: any `agentbox exec` under the default policy.
	code, out, errOut = runCLI(t, "exec", "--", "/bin/cat", passFile)
	if got := rt48aLeakedPass(out); got != "" {
		rt48aCheckUnlocks(t, vaultFile, got, secret)
		t.Errorf("LEAK: agentbox exec read the vault passphrase %q from %s (exit %d, stderr %q)", got, passFile, code, errOut)
	}
}

// rt48aLeakedPass returns the passphrase line of out, "" if none.
func rt48aLeakedPass(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "rt48a-pass-") {
			return l
		}
	}
	return ""
}

// rt48aCheckUnlocks fails the test unless pass opens the vault at file and
// its API_KEY is secret.
func rt48aCheckUnlocks(t *testing.T, file, pass, secret string) {
	t.Helper()
	v, err := vault.Open(file, []byte(pass))
	if err != nil {
		t.Fatalf("premise: %q does not open the vault: %v", pass, err)
	}
	defer v.Close()
	s, err := v.Get("API_KEY")
	if err != nil {
		t.Fatalf("premise: %v", err)
	}
	defer s.Wipe()
	if string(s.Bytes()) != secret {
		t.Fatalf("premise: API_KEY is not the marker value")
	}
}
