//go:build linux

package attack_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/supervise"
)

// stateAttackSh runs inside an agent whose manifest makes the home
// writable, with agentbox's state and data directories in that home (their
// defaults, ~/.local/state/agentbox and ~/.local/share/agentbox). Each
// line it prints is "LABEL ok" or "LABEL fail"; what it read goes to
// stdout as well, so that a secret that got out shows.
const stateAttackSh = `
S=$AGENTBOX_RT_STATE D=$AGENTBOX_RT_DATA L=$AGENTBOX_RT_LOG H=$AGENTBOX_RT_HOME
try() { label=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "$label ok"; else echo "$label fail"; fi; }
# reads: every file below the state and data directories
find "$S" "$D" -type f -exec cat {} + 2>/dev/null
cat "$L" "$L.checkpoints" 2>/dev/null
# writes into the state directory: a fake registry record, a kill marker,
# a replacement audit key
try write_registry sh -c 'mkdir -p "$0/agents" && echo "{\"id\":\"fake\",\"name\":\"victim\",\"init_pid\":1}" > "$0/agents/fake0000.json"' "$S"
try write_kill_marker sh -c 'for f in "$0"/agents/*.json; do echo "{}" > "${f%.json}.kill" || exit 1; done; test -e "$f"' "$S"
try write_state_file sh -c 'echo planted > "$0/planted"' "$S"
try write_data_file sh -c 'echo planted > "$0/planted"' "$D"
# moving the state directory or a parent away, to plant a fresh one
try rename_state mv "$S" "$S.moved"
try rename_state_parent mv "$(dirname "$S")" "$(dirname "$S").moved"
try rename_local mv "$H/.local" "$H/.local.moved"
try remove_state rm -rf "$S"
# links from the writable home to the state directory
try symlink_state_read sh -c 'ln -sf "$0" "$1/rt-state-link" && ls "$1/rt-state-link/" | grep -q .' "$S" "$H"
try hardlink_state sh -c 'for f in $(find "$0" -type f); do ln "$f" "$1/rt-hard-$(basename "$f")" && exit 0; done; exit 1' "$S" "$H"
# the audit log, its checkpoints and its writers' lock
try append_log sh -c 'echo "{}" >> "$0"' "$L"
try write_checkpoints sh -c 'echo "{}" >> "$0.checkpoints"' "$L"
try lock_log flock -n -x "$L.lock" true
try create_log_sibling sh -c 'echo x > "$(dirname "$0")/planted"' "$L"
# control: the writable home itself
try control_write_home sh -c 'echo fine > "$0/rt-control.txt"' "$H"
echo DONE
`

// TestRedteamStateDirWritableHome: an agent run from a manifest that makes
// the home writable cannot read, write, replace or move agentbox's state
// directory (registry, kill markers, audit key, checkpoints), its data
// directory (the vault) or its own audit log, while the home itself is
// writable.
func TestRedteamStateDirWritableHome(t *testing.T) {
	top, err := os.MkdirTemp(baseDir, "rt-state-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(top, "home")
	state := filepath.Join(home, ".local", "state", "agentbox")
	data := filepath.Join(home, ".local", "share", "agentbox")
	for _, d := range []string{home, filepath.Join(home, ".local")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{state, data, filepath.Join(top, "logs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const vaultSecret = "rt-vault-secret-5c1e"
	if err := os.WriteFile(filepath.Join(data, "vault.json"), []byte(vaultSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	// Not parallel: the variables are the process's.
	t.Setenv("AGENTBOX_STATE_DIR", state)
	t.Setenv("AGENTBOX_DATA_DIR", data)
	logPath := filepath.Join(top, "logs", "rt.log")
	manifest := filepath.Join(top, "rt.yaml")
	yaml := "name: rt-state\nversion: \"1.0.0\"\npermissions:\n  filesystem:\n    write: [" + home + "]\n" +
		"  network:\n    deny: [\"*\"]\naudit:\n  log_level: full\n  log_path: " + logPath + "\n"
	if err := os.WriteFile(manifest, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := policy.LoadManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := supervise.OpenRegistry(state)
	if err != nil {
		t.Fatal(err)
	}
	// An earlier run's log, so that the key and checkpoints exist.
	runStateAgent(t, m, reg, home, state, data, logPath, "true")
	keyBefore := stateSnap(t, state)
	stBefore := inodeOf(t, state)

	var out bytes.Buffer
	res := runStateAgent(t, m, reg, home, state, data, logPath, stateAttackSh, &out)
	stdout := out.String()
	t.Logf("agent output:\n%s", stdout)
	if !strings.Contains(stdout, "DONE") {
		t.Fatalf("the attack script did not finish (exit %d)", res.ExitCode)
	}
	results := map[string]string{}
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) == 2 && (f[1] == "ok" || f[1] == "fail") {
			results[f[0]] = f[1]
		}
	}
	for _, label := range []string{"write_registry", "write_kill_marker", "write_state_file", "write_data_file",
		"rename_state", "rename_state_parent", "rename_local", "symlink_state_read", "hardlink_state",
		"append_log", "write_checkpoints", "lock_log", "create_log_sibling"} {
		if results[label] != "fail" {
			t.Errorf("ESCAPE: %s: %q", label, results[label])
		}
	}
	if results["control_write_home"] != "ok" {
		t.Errorf("control: the writable home could not be written: %q", results["control_write_home"])
	}
	if b, err := os.ReadFile(filepath.Join(home, "rt-control.txt")); err != nil || string(b) != "fine\n" {
		t.Errorf("control: the home write did not reach the host: %q %v", b, err)
	}
	// Nothing read from the state or data directory.
	for _, s := range []string{vaultSecret, `"init_pid"`, "PRIVATE KEY", "agentbox-audit"} {
		if strings.Contains(stdout, s) && !strings.Contains(stateAttackSh, s) {
			t.Errorf("ESCAPE: the agent read %q from agentbox's files", s)
		}
	}
	for _, s := range keyBefore.secrets {
		if strings.Contains(stdout, s) {
			t.Errorf("ESCAPE: the agent read the content of a state file")
		}
	}
	// Nothing changed there on the host.
	if inodeOf(t, state) != stBefore {
		t.Errorf("ESCAPE: the state directory was replaced")
	}
	after := stateSnap(t, state)
	for name := range after.files {
		if _, ok := keyBefore.files[name]; !ok && !strings.HasPrefix(name, "agents/") && !strings.Contains(name, "checkpoint") {
			t.Errorf("ESCAPE: a new file in the state directory: %s", name)
		}
	}
	for _, p := range []string{filepath.Join(state, "planted"), filepath.Join(data, "planted"), filepath.Join(state, "agents", "fake0000.json"),
		state + ".moved", filepath.Dir(state) + ".moved", filepath.Join(home, ".local.moved"), filepath.Join(top, "logs", "planted")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPE: %s exists on the host", p)
		}
	}
	rep, err := audit.Verify(logPath, audit.VerifyOptions{StateDir: state})
	if err != nil || !rep.OK {
		t.Errorf("the audit log does not verify after the attack: %+v %v", rep, err)
	}
}

func runStateAgent(t *testing.T, m *policy.Manifest, reg *supervise.Registry, home, state, data, logPath, script string, out ...*bytes.Buffer) *supervise.Result {
	t.Helper()
	var buf syncbuf.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a, err := supervise.Start(ctx, m, supervise.Options{
		Program: "/bin/sh", Args: []string{"-c", script}, Registry: reg, Approved: true,
		Dir: home, Stdout: &buf, Stderr: &buf,
		Env: []string{"AGENTBOX_RT_STATE=" + state, "AGENTBOX_RT_DATA=" + data, "AGENTBOX_RT_LOG=" + logPath, "AGENTBOX_RT_HOME=" + home},
	})
	if err != nil {
		t.Fatalf("supervise.Start: %v", err)
	}
	res, err := a.Wait()
	if err != nil {
		t.Fatalf("Wait: %v\n%s", err, buf.String())
	}
	if len(out) > 0 {
		out[0].WriteString(buf.String())
	}
	return res
}

// stateSnapshot is what a directory tree holds.
type stateSnapshot struct {
	files   map[string]bool
	secrets []string // contents long enough to recognise
}

func stateSnap(t *testing.T, dir string) stateSnapshot {
	t.Helper()
	s := stateSnapshot{files: map[string]bool{}}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		s.files[rel] = true
		if b, err := os.ReadFile(p); err == nil && len(bytes.TrimSpace(b)) >= 24 {
			s.secrets = append(s.secrets, strings.TrimSpace(string(b))[:24])
		}
		return nil
	})
	return s
}

func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
