package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam48ManifestRewrittenByExec: DESIGN.md's default policy keeps
// "agentbox policy files" read-only inside writable roots, and a run keeps
// its own manifest out of its agent's reach. But the protection of a
// manifest lasts only for the run that names it, and the names protected
// in every sandbox are agentbox.yaml and .agentbox only: a manifest kept
// as the seed keeps its own (manifests/NAME.yaml in the project) is an
// ordinary file to every other sandbox. A command run with the project as
// its writable root (`agentbox exec --write PROJECT`, what a coding agent
// runs all day, or another agent's run) rewrites the manifest of an agent
// it is not, and that agent's next run gets the policy the command wrote:
// its deny list gone, more hosts, more writable roots.
//
// Attack: exec --write PROJ -- sh -c 'printf "name: worker\n" >
// PROJ/manifests/worker.yaml' removes the manifest's deny of
// PROJ/private/secret.txt; the next `agentbox run --manifest
// manifests/worker.yaml` lets the agent read it.
//
// Why it works: supervise/agent.go:prepare adds the manifest to DenyWrite
// for its own run only; config.go:ProtectedIfPresent names agentbox.yaml,
// not the manifests agentbox has run (no record of them is kept, unlike
// granted-writable-roots), so exec's sandbox leaves them writable.
//
// Severity: high (a write the policy denies: an agentbox policy file in a
// writable root, which widens a later run). Found by red-team round 48.
// Fixed: the manifests agentbox runs are recorded (internal/keptfiles), and
// every sandbox of the user keeps them read-only.
func TestRedteam48ManifestRewrittenByExec(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	for _, d := range []string{"manifests", "private"} {
		if err := os.Mkdir(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(proj, "private", "secret.txt")
	if err := os.WriteFile(secret, []byte("rt48a-secret-marker\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(proj, "manifests", "worker.yaml")
	orig := "name: rt48a-worker\npermissions:\n  filesystem:\n    deny: [\"" + secret + "\"]\n"
	if err := os.WriteFile(manifest, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	readSecret := []string{"--approve", "--", "/bin/sh", "-c", "cat " + secret + "; echo rt48a-ran"}

	// Control: the manifest denies the file to its agent.
	code, out, errOut := runCLI(t, append([]string{"run", "--manifest", manifest}, readSecret...)...)
	if code != 0 || !strings.Contains(out, "rt48a-ran") || strings.Contains(out, "rt48a-secret-marker") {
		t.Fatalf("control: run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Control: exec with the project writable works, and a protected
	// policy file (agentbox.yaml) stays read-only there.
	protected := filepath.Join(proj, "agentbox.yaml")
	if err := os.WriteFile(protected, []byte("name: rt48a-protected\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"echo ok > "+filepath.Join(proj, "work.txt")+"; echo x >> "+protected+"; echo rt48a-exec-done")
	if code == 126 || code == 125 || !strings.Contains(out, "rt48a-exec-done") {
		t.Fatalf("control: exec: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "work.txt")); string(b) != "ok\n" {
		t.Fatalf("control: exec did not write its writable root: %q", b)
	}
	if b, _ := os.ReadFile(protected); string(b) != "name: rt48a-protected\n" {
		t.Fatalf("control: agentbox.yaml was written: %q", b)
	}

	// Attack: a sandboxed command with the project writable rewrites the
	// other agent's manifest.
	code, out, errOut = runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"printf 'name: rt48a-worker\\n' > "+manifest+" && echo rt48a-rewrote")
	b, _ := os.ReadFile(manifest)
	if string(b) == orig {
		return // held
	}
	// Premise: the next run of that manifest reads the file it denied.
	code2, out2, errOut2 := runCLI(t, append([]string{"run", "--manifest", manifest}, readSecret...)...)
	if code2 != 0 || !strings.Contains(out2, "rt48a-secret-marker") {
		t.Fatalf("the manifest was rewritten (%q) but the next run did not widen: exit %d, stdout %q, stderr %q", b, code2, out2, errOut2)
	}
	t.Errorf("WRITE: agentbox exec --write rewrote the manifest %s of another agent (exit %d, %q, %q): its next run read the denied %s",
		manifest, code, out, errOut, secret)
}
