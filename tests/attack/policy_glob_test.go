//go:build linux

package attack_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyEdgeManifestDenyGlob: a manifest denies "*.pem" and "**/.env"
// in its own writable directory. Path rules are not patterns; validate
// says the manifest is valid and lists the rules as if they denied
// something, and run then lets the agent read both files. A rule that
// cannot match what it looks like it matches must be refused (or
// implemented), not accepted in silence.
func TestPolicyEdgeManifestDenyGlob(t *testing.T) {
	t.Parallel()
	proj := newDir(t, 0o777)
	logs := newDir(t, 0o777)
	pem, env := uniqueSecret("pem"), uniqueSecret("env")
	writeFile(t, filepath.Join(proj, "server.pem"), pem, 0o644)
	writeFile(t, filepath.Join(proj, "app", ".env"), env, 0o644)
	writeFile(t, filepath.Join(proj, "README"), publicContent, 0o644)
	manifest := filepath.Join(logs, "globs.yaml")
	writeFile(t, manifest, fmt.Sprintf(`name: deny-globs
permissions:
  filesystem:
    write: [%q]
    deny: [%q, %q]
audit: {log_path: %q}
`, proj, proj+"/*.pem", proj+"/**/.env", filepath.Join(logs, "audit.log")), 0o644)
	ps := []probe{
		control("public", "read:"+filepath.Join(proj, "README"), publicContent),
		attack("pem_by_glob", "read:"+filepath.Join(proj, "server.pem"), "EACCES"),
		attack("env_by_glob", "read:"+filepath.Join(proj, "app", ".env"), "EACCES"),
	}
	_, vErr, vCode := runCLIIn(t, proj, "validate", manifest)
	args := append([]string{"run", "--manifest", manifest, "--", attackerBin}, probeArgs(ps)...)
	o, _, code := runCLIIn(t, proj, args...)
	if code == 125 || code == 126 {
		return // refused: the rules did not pass in silence
	}
	if vCode == 0 {
		t.Logf("validate accepted the manifest (%s)", strings.TrimSpace(vErr))
	}
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)", code)
	}
	checkProbes(t, o, ps)
}
