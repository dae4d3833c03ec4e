package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestLinkTheAgentCouldReplace: a manifest named through a
// symbolic link inside a directory the agent may write would let the agent
// point the link at a manifest of its own for the next run (the file the
// link names is kept read-only, the link cannot be). run refuses it and
// names the real path; through the real path, and through a link the agent
// cannot write, the same manifest runs (controls).
func TestManifestLinkTheAgentCouldReplace(t *testing.T) {
	runEnv(t)
	dir, proj, real, _ := linkedManifestProject(t, "cfg")
	cfgDir := filepath.Dir(real)
	inside := filepath.Join(proj, "agent.yaml") // a link the agent may replace
	dirLink := filepath.Join(proj, "conf")      // a directory link it may replace
	outside := filepath.Join(dir, "agent.yaml") // a link it may not
	for link, target := range map[string]string{inside: real, dirLink: cfgDir, outside: real} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	evil := filepath.Join(proj, "evil.yaml")
	script := "printf 'name: linked\\npermissions: {filesystem: {write: [\"/\"]}}\\n' > " + evil +
		" && ln -sfn " + evil + " " + inside + " && echo REPOINTED; echo ok > " + filepath.Join(proj, "legit") + " && echo LEGIT"
	for _, m := range []string{inside, filepath.Join(dirLink, "agent.yaml")} {
		code, out, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", script)
		if strings.Contains(out, "REPOINTED") {
			t.Errorf("ESCAPE: run through %s let the agent point it at its own manifest", m)

		}
		if code != 125 || !strings.Contains(errOut, "name the manifest by its real path, "+real) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("run --manifest %s: exit %d, stderr %q; want 125 and the real path, in one line", m, code, errOut)
		}
	}
	for _, m := range []string{real, outside} {
		code, out, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "echo ok > "+filepath.Join(proj, "legit")+" && echo LEGIT")
		if code != 0 || !strings.Contains(out, "LEGIT") {
			t.Errorf("control: run --manifest %s: exit %d, stdout %q, stderr %q", m, code, out, errOut)
		}
	}
}

// linkedManifestProject makes a directory the sandbox can enter holding a
// project (proj, the manifest's writable root) and the manifest at
// proj/sub/agent.yaml (sub "" for proj itself), with its audit log beside
// the project. It returns the directory, the project, the manifest's path
// and its text.
func linkedManifestProject(t *testing.T, sub string) (dir, proj, manifest, src string) {
	t.Helper()
	dir = t.TempDir()
	// A root caller's sandbox runs as nobody: let it in.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	proj = filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest = filepath.Join(proj, sub, "agent.yaml")
	src = "name: linked\npermissions: {filesystem: {write: [\"" + proj + "\"]}}\naudit: {log_path: \"" + filepath.Join(dir, "logs", "a.log") + "\"}\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, proj, manifest, src
}
