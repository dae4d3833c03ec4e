package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam50MidPathVariableDenyDeniesNothing: round 17 found that a
// deny rule written with an environment variable denies nothing, and the
// fix refuses a path rule that *starts* with $ or holds ${. The form people
// write most, a variable in the middle of an absolute path
// ("/home/$USER/.ssh", "/Users/$USER/Library/...", "/data/$USER/secrets"),
// or a command substitution ("/home/$(whoami)/.aws"), still passes
// validate without a word: it is taken literally, names no file, and the
// file the author meant to deny stays readable to the agent.
//
// Attack: a manifest with deny: ["BASE/$USER/notes/secret.txt"] (USER is
// the home's owner); the agent runs cat on BASE/alice/notes/secret.txt.
//
// Why it works: policy/manifest_decode.go:(*decoder).path refuses only
// strings.HasPrefix(s, "$") || strings.Contains(s, "${"); "$USER" after a
// "/" and "$(" are neither.
//
// Severity: high (a read of a path the manifest denies, with validate
// calling the manifest valid). Found by red-team round 50. Fixed: a path
// holding $NAME, ${…} or $(…) anywhere that names no file is refused
// (policy/manifest_decode.go:shellExpansion).
func TestRedteam50MidPathVariableDenyDeniesNothing(t *testing.T) {
	runEnv(t)
	base := publicTempDir(t)
	home := filepath.Join(base, "alice")
	secret := filepath.Join(home, "notes", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("RT50B-TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("USER", "alice")
	for _, tc := range []struct{ name, rule string }{
		{"tilde_control", "~/notes/secret.txt"},
		{"literal_control", secret},
		{"dollar_USER_midpath", base + "/$USER/notes/secret.txt"},
		{"command_substitution", base + "/$(whoami)/notes/secret.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := writeManifest(t, "name: rt50b-vardeny\npermissions:\n  filesystem:\n    deny: [\""+tc.rule+"\"]\n")
			code, _, vErr := runCLI(t, "validate", m)
			flagged := code != 0 || strings.Contains(vErr, "warning")
			code, out, errOut := runCLI(t, "run", "--manifest", m, "--approve", "--", "/bin/sh", "-c", "cat "+secret+"; echo rt50b-ran")
			if !strings.Contains(out, "rt50b-ran") && !flagged {
				t.Fatalf("premise: the agent did not run: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			read := strings.Contains(out, "RT50B-TOPSECRET")
			if strings.HasSuffix(tc.name, "_control") {
				if read || flagged {
					t.Errorf("control %q: validate flagged %v, agent read the file %v (stdout %q, stderr %q)", tc.rule, flagged, read, out, errOut)
				}
				return
			}
			if !flagged && read {
				t.Errorf("deny %q: validate called it valid without a warning, and the agent read %s", tc.rule, secret)
			}
		})
	}
}
