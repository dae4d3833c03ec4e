//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam17EnvVarDenyDeniesNothing: "~/x" is expanded, and a deny rule
// written as a pattern ("*.pem") is refused because it would deny nothing.
// A deny rule written with an environment variable, "$HOME/notes/secret.txt"
// or "${HOME}/...", is neither: validate calls it valid without a warning,
// and it is taken as a relative path under the manifest's directory
// ("<dir>/$HOME/notes/secret.txt"), which names no file. The file the
// author meant to deny stays readable in the sandbox.
//
// Fixed: a path rule starting with $ or holding ${ is refused unless a file
// of that very name exists (manifests expand no variable).
func TestRedteam17EnvVarDenyDeniesNothing(t *testing.T) {
	runEnv(t)
	// Outside /tmp, which the sandbox replaces with a private one.
	home, err := os.MkdirTemp("/var/tmp", "rt17-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	secret := filepath.Join(home, "notes", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, rule string }{
		{"tilde control", "~/notes/secret.txt"},
		{"dollar HOME", "$HOME/notes/secret.txt"},
		{"braced HOME", "${HOME}/notes/secret.txt"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			m := writeManifest(t, "name: envdeny\npermissions:\n  filesystem:\n    deny: [\""+tc.rule+"\"]\n")
			code, _, vErr := runCLI(t, "validate", m)
			if code != 0 || strings.Contains(vErr, "warning") {
				return // refused or flagged: the author is told
			}
			code, out, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/cat", secret)
			if strings.Contains(out, "TOPSECRET") {
				t.Errorf("deny %q: validate called it valid without a warning and the sandbox read %s (exit %d)", tc.rule, secret, code)
			}
			if tc.name == "tilde control" && (code == 0 || !strings.Contains(errOut+out, "secret.txt")) {
				t.Errorf("control: cat of the denied file: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
