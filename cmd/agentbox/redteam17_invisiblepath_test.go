//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam17InvisibleCharDenyDeniesNothing: manifest strings are
// refused when they hold a control or bidirectional character, but not an
// invisible format character (U+200B zero width space, U+200D, U+2060,
// U+FEFF) or trailing white space. A deny rule "~/notes/secret.txt" + U+200B
// is called valid without a warning, validate's summary shows it exactly
// as the real file's path, and it names another (missing) file: the file the
// reviewer sees denied stays readable in the sandbox.
//
// Fixed: manifest strings other than free text refuse format characters and
// spaces other than U+0020, and path rules white space at either end.
func TestRedteam17InvisibleCharDenyDeniesNothing(t *testing.T) {
	runEnv(t)
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
	for _, tc := range []struct{ name, suffix string }{
		{"control", ""},
		{"zero width space", "\u200b"},
		{"zero width joiner", "\u200d"},
		{"word joiner", "\u2060"},
		{"byte order mark", "\ufeff"},
		{"no-break space", "\u00a0"},
		{"trailing space", " "},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			m := writeManifest(t, "name: invisible\npermissions:\n  filesystem:\n    deny: [\"~/notes/secret.txt"+tc.suffix+"\"]\n")
			code, vOut, vErr := runCLI(t, "validate", m)
			if code != 0 || strings.Contains(vErr, "warning") {
				return // refused or flagged: the reviewer is told
			}
			if !strings.Contains(vOut, secret) {
				t.Errorf("the summary does not show %s:\n%s", secret, vOut)
			}
			code, out, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/cat", secret)
			if strings.Contains(out, "TOPSECRET") {
				t.Errorf("deny %q: validate called it valid without a warning, its summary shows %s, and the sandbox read that file (exit %d)", "~/notes/secret.txt"+tc.suffix, secret, code)
			}
			if tc.name == "control" && (code == 0 || !strings.Contains(errOut+out, "secret.txt")) {
				t.Errorf("control: cat of the denied file: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
