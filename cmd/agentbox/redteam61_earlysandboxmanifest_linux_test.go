package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam61ManifestRewrittenBySandboxStartedEarlier: round 48 found
// that a sandbox with a project writable (`agentbox exec --write PROJECT`,
// or another agent's run) rewrote the manifest of an agent it is not, and
// that agent's next run got the policy it wrote. The fix records every
// manifest a run uses (internal/keptfiles, keptfiles.Policy) and every
// sandbox keeps the recorded files read-only. A sandbox learns the record
// only when it starts, though: one already running when the manifest's
// first run starts (a coding agent's long `exec --write PROJECT` session,
// a watch loop, another agent's run) keeps the manifest writable for as
// long as it runs, after that run and during later ones.
//
// Attack: start `agentbox exec --write PROJ -- sh -c 'wait for the run;
// printf "name: worker\n" > PROJ/manifests/worker.yaml'` first; then run
// the worker (its manifest denies PROJ/private/secret.txt, and the run
// records the manifest as kept); the early sandbox rewrites the manifest
// after the run; the worker's next run reads the secret.
//
// Why it works: supervise/agent.go:prepare records the manifest with
// keptfiles.Record(keptfiles.Policy, …), which reaches only sandboxes
// that start later (the masks of a running one were fixed at its start);
// nothing looks for running sandboxes whose writable roots hold the
// manifest (the granted-writable-roots record knows them), and run does not
// refuse or warn about it.
//
// Severity: high (a write the policy denies: a manifest agentbox ran, kept
// read-only "in every sandbox", is rewritten; its next run reads a file its
// manifest denied). Found by red-team round 61. Fixed: every sandbox
// registers its writable roots as running (internal/liveroots) before it
// reads the kept files, and a run, having recorded its manifest and log,
// refuses one inside a running sandbox's roots (supervise:
// refuseRunningWriters, RunningWriterError).
func TestRedteam61ManifestRewrittenBySandboxStartedEarlier(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	for _, d := range []string{"manifests", "private"} {
		if err := os.Mkdir(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(proj, "private", "secret.txt")
	if err := os.WriteFile(secret, []byte("rt61b-secret-marker\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(proj, "manifests", "worker.yaml")
	orig := "name: rt61b-worker\npermissions:\n  filesystem:\n    deny: [\"" + secret + "\"]\n"
	if err := os.WriteFile(manifest, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	goFile := filepath.Join(proj, "go")
	okFile := filepath.Join(proj, "ok.txt")
	readSecret := []string{"--approve", "--", "/bin/sh", "-c", "cat " + secret + "; echo rt61b-ran"}

	// The sandbox started first: it writes an ordinary file (control),
	// then waits (at most 60 s) for the go file.
	early := startCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"echo rt61b-ok > "+okFile+"; echo rt61b-early-ready; i=0; while [ ! -e "+goFile+" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo rt61b-early-end")
	early.waitOutput(t, "rt61b-early-ready")

	// The attack's first step: a run of the manifest while that sandbox
	// may write it. Refused, naming the file and the root.
	code, out, errOut := runCLI(t, append([]string{"run", "--manifest", manifest}, readSecret...)...)
	if code != 125 || strings.Contains(out, "rt61b-ran") || !strings.Contains(errOut, "a sandbox running now may write") || !strings.Contains(errOut, manifest) {
		t.Errorf("WRITE: a run of %s started while a sandbox started before it (exec --write %s) may rewrite the manifest: exit %d, stdout %q, stderr %q",
			manifest, proj, code, out, errOut)
	}

	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := early.wait(t, 60*time.Second); c != 0 || !strings.Contains(early.stdout.String(), "rt61b-early-end") {
		t.Fatalf("early exec: exit %d, stdout %q, stderr %q", c, early.stdout.String(), early.stderr.String())
	}
	if b, err := os.ReadFile(okFile); err != nil || string(b) != "rt61b-ok\n" {
		t.Fatalf("control: the early sandbox did not write %s (%q, %v)", okFile, b, err)
	}
	// Control: with that sandbox gone, the run goes, and the manifest
	// denies the file to its agent.
	code, out, errOut = runCLI(t, append([]string{"run", "--manifest", manifest}, readSecret...)...)
	if code != 0 || !strings.Contains(out, "rt61b-ran") || strings.Contains(out, "rt61b-secret-marker") {
		t.Fatalf("control: run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Control: a sandbox started after the run keeps the manifest
	// read-only (round 48's fix); it opens it for appending only.
	lcode, lout, lerr := runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"( : >> "+manifest+" ) 2>/dev/null && echo rt61b-late-opened; echo rt61b-late-end")
	if lcode != 0 || !strings.Contains(lout, "rt61b-late-end") {
		t.Fatalf("late exec: exit %d, stdout %q, stderr %q", lcode, lout, lerr)
	}
	if strings.Contains(lout, "rt61b-late-opened") {
		t.Fatalf("control: a sandbox started after the run could open the manifest for writing (round 48's fix is off): %q", lout)
	}
}
