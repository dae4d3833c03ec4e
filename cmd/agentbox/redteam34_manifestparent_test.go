//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam34ManifestParentRename: the manifest lives in a directory
// inside the agent's writable root (W/cfg/agent.yaml). run keeps the
// manifest file read-only (DenyWrite on its real path), so that the agent
// cannot widen its own next run. The agent renames the manifest's parent
// directory away (W/cfg -> W/moved) and writes a new W/cfg/agent.yaml of
// its own, which grants a wider writable root; also it tries a direct
// overwrite, a rename over the file, and a hard link (controls: those are
// refused; writing elsewhere in W works).
//
// Severity: high if it works (the next run of the same manifest path gives
// the agent what the operator never granted). A fix would need the
// manifest's ancestors inside writable roots pinned against rename, or a
// refusal of a manifest inside a writable root.
func TestRedteam34ManifestParentRename(t *testing.T) {
	runEnv(t)
	dir := publicTempDir(t)
	w := filepath.Join(dir, "w")
	cfg := filepath.Join(w, "cfg")
	if err := os.MkdirAll(cfg, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(w, 0o777)
	_ = os.Chmod(cfg, 0o777)
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o777); err != nil {
		t.Fatal(err)
	}
	mf := filepath.Join(cfg, "agent.yaml")
	orig := fmt.Sprintf("name: rt34-mf\npermissions: {filesystem: {write: [%q]}}\naudit: {log_path: %q}\n", w, filepath.Join(dir, "logs", "a.log"))
	if err := os.WriteFile(mf, []byte(orig), 0o666); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(mf, 0o666)
	evil := fmt.Sprintf("name: rt34-mf\npermissions: {filesystem: {write: [%q, %q]}}\n", w, other)
	script := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
W="$1"
echo control > "$W/control" && echo control-ok
printf '%s' "$2" > "$W/cfg/agent.yaml" 2>/dev/null && echo direct-write
printf '%s' "$2" > "$W/new.yaml" && mv "$W/new.yaml" "$W/cfg/agent.yaml" 2>/dev/null && echo rename-over
mv "$W/cfg" "$W/moved" 2>&1 && echo parent-renamed
mkdir -p "$W/cfg" && printf '%s' "$2" > "$W/cfg/agent.yaml" && echo planted
echo done
`), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startCLI(t, "run", "--manifest", mf, "--", "/bin/sh", script, w, evil)
	code := p.wait(t, 60e9)
	out := p.stdout.String()
	t.Logf("exit %d\nagent output:\n%s\nstderr: %s", code, out, p.stderr.String())
	if !strings.Contains(out, "control-ok") {
		t.Fatalf("control: the agent could not write its writable root")
	}
	for _, s := range []string{"direct-write", "rename-over", "parent-renamed", "planted"} {
		if strings.Contains(out, s) {
			t.Errorf("agent step %q succeeded", s)
		}
	}
	b, _ := os.ReadFile(mf)
	if string(b) != orig {
		t.Errorf("the manifest at %s now reads:\n%s", mf, b)
	}
}
