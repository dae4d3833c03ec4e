package main

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

// TestRedteam48AuditKeyReadUnderMovedXDG: the default deny set holds
// "agentbox's own state and data directories", but as the environment of
// the sandboxing process names them at that moment (config.go:
// DefaultDenyRead calls paths.StateDir and paths.DataDir, which follow
// XDG_STATE_HOME and XDG_DATA_HOME). A user's agentbox keeps its audit
// signing key and its vault in ~/.local/state/agentbox and
// ~/.local/share/agentbox; a program that moves the XDG directories for
// the processes it starts (a Flatpak application such as a sandboxed IDE
// sets XDG_STATE_HOME and XDG_DATA_HOME to ~/.var/app/ID/…, HOME
// unchanged) and runs `agentbox exec` for its coding agent gets a sandbox
// that denies ~/.var/app/ID/state/agentbox, where nothing is, and lets the
// command read the user's real audit key (and vault). agentbox already
// denies the credential stores of other tools both where the environment
// moves them and where they normally are (movedStores); its own stay
// readable.
//
// Attack: as an ordinary user whose `agentbox run` made
// ~/.local/state/agentbox/audit/key, XDG_STATE_HOME=~/.var/app/x/state
// XDG_DATA_HOME=~/.var/app/x/data agentbox exec -- cat
// ~/.local/state/agentbox/audit/key prints the key; it is the Ed25519
// signer whose verifier is key.pub, so the command can re-sign a rewritten
// audit log that `verify` then passes. The vault file is read too.
//
// Why it works: config.go:DefaultDenyRead denies only the directories
// paths.StateDir/DataDir (internal/paths/paths.go:resolve) return for the
// current environment, not the home's defaults beside them.
//
// Severity: high (a secret read: the audit log's signing key, which
// DESIGN.md says is "held outside every sandbox"). Root only (it acts as
// the unprivileged test user: a root caller's sandboxes run as nobody).
// Found by red-team round 48 (high). Fixed: every sandbox is denied every
// place agentbox's state and data directories may be (internal/paths.Places:
// the resolved ones, the defaults below the home, root's).
func TestRedteam48AuditKeyReadUnderMovedXDG(t *testing.T) {
	name, bin := rt4OtherUser(t)
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	home, err := os.MkdirTemp("/var/tmp", "rt48a-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(home, "agent.yaml")
	if err := os.WriteFile(manifest, []byte("name: rt48a-keyed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(manifest, uid, gid); err != nil {
		t.Fatal(err)
	}
	passFile := filepath.Join(home, "pass")
	if err := os.WriteFile(passFile, []byte("rt48a-pass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(passFile, uid, gid); err != nil {
		t.Fatal(err)
	}

	// The user's own agentbox, in a terminal: a run makes the audit key,
	// a vault add the vault, both in their default places.
	if code, out, errOut := rt48aAsUser(t, name, bin, home, "", nil, "run", "--manifest", manifest, "--", "/bin/true"); code != 0 {
		t.Fatalf("setup run: exit %d %q %q", code, out, errOut)
	}
	if code, out, errOut := rt48aAsUser(t, name, bin, home, "rt48a-value\n", nil, "vault", "add", "--passphrase-file", passFile, "API_KEY"); code != 0 {
		t.Fatalf("setup vault add: exit %d %q %q", code, out, errOut)
	}
	keyPath := filepath.Join(home, ".local", "state", "agentbox", "audit", "key")
	vaultPath := filepath.Join(home, ".local", "share", "agentbox", "vault.json")
	keyText, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	if _, err := os.Stat(vaultPath); err != nil {
		t.Fatalf("setup: %v", err)
	}
	script := "cat " + keyPath + "; head -c 12 " + vaultPath + "; echo; cat " + manifest + "; echo rt48a-done"

	// Control: the user's exec does not read them, and reads the rest.
	code, out, errOut := rt48aAsUser(t, name, bin, home, "", nil, "exec", "--", "/bin/sh", "-c", script)
	if strings.Contains(out, "PRIVATE+KEY") || !strings.Contains(out, "rt48a-keyed") {
		t.Fatalf("control: exec: exit %d %q %q", code, out, errOut)
	}

	// Attack: the same user, with the XDG directories moved (as a Flatpak
	// application's processes have them).
	moved := []string{"XDG_STATE_HOME=" + filepath.Join(home, ".var", "app", "x", "state"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".var", "app", "x", "data")}
	code, out, errOut = rt48aAsUser(t, name, bin, home, "", moved, "exec", "--", "/bin/sh", "-c", script)
	if !strings.Contains(out, "rt48a-done") {
		t.Fatalf("exec with moved XDG directories did not run: exit %d %q %q", code, out, errOut)
	}
	var leaked string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "PRIVATE+KEY+") {
			leaked = l
		}
	}
	if leaked == "" {
		return // held
	}
	// Premise: what the command read is the user's audit signer.
	if strings.TrimSpace(string(keyText)) != leaked {
		t.Fatalf("read a key that is not the user's: %q", leaked)
	}
	signer, err := note.NewSigner(leaked)
	if err != nil {
		t.Fatalf("premise: not a signer key: %v", err)
	}
	pub, err := os.ReadFile(filepath.Join(filepath.Dir(keyPath), "key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(strings.TrimSpace(string(pub)))
	if err != nil || v.KeyHash() != signer.KeyHash() || v.Name() != signer.Name() {
		t.Fatalf("premise: the read key is not key.pub's signer: %v", err)
	}
	msg, err := note.Sign(&note.Note{Text: "agentbox audit checkpoint v1\nsize 1\nhead rt48a\ntime 2026-01-01T00:00:00Z\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(msg, note.VerifierList(v)); err != nil {
		t.Fatalf("premise: a checkpoint signed with the read key does not verify: %v", err)
	}
	t.Errorf("LEAK: exec with XDG_STATE_HOME/XDG_DATA_HOME moved read the user's audit signing key %s (it signs checkpoints key.pub verifies) and the vault:\n%s", keyPath, out)
}

// rt48aAsUser runs the CLI as user name with HOME=home, a clean
// environment plus env, and stdin.
func rt48aAsUser(t *testing.T, name, bin, home, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	full := append([]string{"-u", name, "--", "env", "-i", "HOME=" + home, "PATH=/usr/bin:/bin", cliEnv + "=1"}, env...)
	full = append(append(full, bin), args...)
	cmd := exec.Command("runuser", full...)
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}
