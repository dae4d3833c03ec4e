//go:build linux

package agentbox_test

// Red-team session 15: a run's vault is denied to the command by its path
// (supervise adds --vault FILE to DenyRead, as WithDenyRead does here).
// Writing the vault (agentbox vault add|delete, Vault.Put) replaces the
// file: a temporary file beside it, then a rename over it. A command
// running meanwhile, whose sandbox can read the vault's directory, then
// reads the new vault (or the temporary file) and can attack its
// passphrase offline.

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/vault"
)

func TestRedteam15VaultRewrittenDuringRun(t *testing.T) {
	if os.Geteuid() == 0 {
		// As root the command runs as nobody and the vault is 0600:
		// closed whatever the mounts; the case is an unprivileged user's.
		t.Skip("run as an unprivileged user")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// A directory the sandbox may read (not /tmp, which is private).
	dir, err := os.MkdirTemp(wd, ".rt15vault-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "project.vault")
	pass := []byte("rt15 passphrase")
	v, err := vault.Create(path, pass, vault.WithKDFParams(vault.KDFParams{Time: 1, MemoryKiB: 64, Threads: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.Put("API_KEY", []byte("rt15-first-value")); err != nil {
		t.Fatal(err)
	}

	m := newManager(t, agentbox.CIConfig())
	// The command tries at once (control: refused), then polls for 4 s.
	script := `p="$1"
if cat "$p" >/dev/null 2>&1; then echo EARLY; fi
i=0
while [ $i -lt 40 ]; do
  for f in "$p" "$(dirname "$p")"/.project.vault.*.tmp; do
    if [ -f "$f" ] && cat "$f" >/dev/null 2>&1 && [ -s "$f" ]; then echo "GOT $f"; base64 -w0 "$f"; echo; exit 0; fi
  done
  sleep 0.1; i=$((i+1))
done
echo NEVER`
	done := make(chan *agentbox.ExecResult, 1)
	go func() {
		res, err := m.ExecArgs(context.Background(), "/bin/sh", []string{"-c", script, "sh", path},
			agentbox.WithDenyRead(path), agentbox.WithTimeout(15*time.Second))
		if err != nil {
			t.Errorf("exec: %v", err)
		}
		done <- res
	}()
	time.Sleep(1500 * time.Millisecond)
	// The user adds a credential while the agent runs.
	if err := v.Put("NEW_KEY", []byte("rt15-second-value")); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil {
		t.Fatal("no result")
	}
	out := res.Stdout
	t.Logf("stdout: %.200s stderr: %.300s", out, res.Stderr)
	if strings.Contains(out, "EARLY") {
		t.Fatalf("control failed: the vault was readable from the start")
	}
	if !strings.Contains(out, "GOT ") {
		return // held
	}
	_, rest, _ := strings.Cut(out, "GOT ")
	lines := strings.SplitN(rest, "\n", 3)
	got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(lines[1]))
	if err != nil {
		t.Fatalf("decoding what the command read: %v", err)
	}
	real, _ := os.ReadFile(path)
	if len(got) > 0 {
		t.Fatalf("the command read the rewritten vault (%s, %d bytes, equal to the vault now: %v): its passphrase can be attacked offline",
			lines[0], len(got), string(got) == string(real))
	}
}
