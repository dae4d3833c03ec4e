package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam53BacktickDenyDeniesNothing: round 50 made a path rule that
// holds $NAME, ${…} or $(…) anywhere and names no file an error, since a
// manifest expands none of them and the rule would deny nothing. The
// other command substitution every shell knows, backquotes
// ("/home/`whoami`/.aws", "/data/`id -un`/secrets"), is not among them:
// the rule is taken literally, names no file, validate calls the manifest
// valid without a warning, and the file the author meant to deny stays
// readable to the agent.
//
// Attack: a manifest with deny: ["BASE/`whoami`/notes/secret.txt"]; the
// agent runs cat on BASE/alice/notes/secret.txt (alice is whoami's
// answer, as the premise checks with a real shell).
//
// Why it works: policy/manifest_decode.go:shellExpansion looks only for a
// '$' followed by '{', '(', '_' or a letter; a '`' is not checked.
//
// Severity: high (a read of a path the manifest denies, with validate
// calling the manifest valid), as round 50 rated the $(…) form. Found by
// red-team round 53. Fixed: a path with `…` that names no file is
// refused (shellExpansion).
func TestRedteam53BacktickDenyDeniesNothing(t *testing.T) {
	runEnv(t)
	base := publicTempDir(t)
	out, err := rt53bSh(t, "whoami")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("premise: whoami: %q %v", out, err)
	}
	user := strings.TrimSpace(out)
	// Premise: a shell reads the rule as the author meant it.
	rule := base + "/`whoami`/notes/secret.txt"
	if got, err := rt53bSh(t, "echo "+rule); err != nil || strings.TrimSpace(got) != filepath.Join(base, user, "notes", "secret.txt") {
		t.Fatalf("premise: a shell expands %q to %q (%v)", rule, got, err)
	}
	home := filepath.Join(base, user)
	secret := filepath.Join(home, "notes", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("RT53B-TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	for _, tc := range []struct{ name, rule string }{
		{"literal_control", secret},
		{"dollar_paren_control", base + "/$(whoami)/notes/secret.txt"},
		{"backquotes", rule},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flagged, read, out, errOut := rt53bDenyRun(t, "rt53b-tickdeny", tc.rule, secret, "RT53B-TOPSECRET")
			switch tc.name {
			case "literal_control":
				if read || flagged {
					t.Errorf("control %q: validate flagged %v, agent read the file %v (stdout %q, stderr %q)", tc.rule, flagged, read, out, errOut)
				}
			case "dollar_paren_control":
				if !flagged {
					t.Errorf("control %q: round 50's check is off (validate called it valid)", tc.rule)
				}
			default:
				if !flagged && read {
					t.Errorf("deny %q: validate called it valid without a warning, and the agent read %s", tc.rule, secret)
				}
			}
		})
	}
}

func rt53bSh(t *testing.T, script string) (string, error) {
	t.Helper()
	b, err := exec.Command("/bin/sh", "-c", script).Output()
	return string(b), err
}

// rt53bDenyRun validates a manifest denying rule, runs an agent under it
// that cats secret, and reports whether validate flagged the rule and
// whether the agent read the file (its text holds marker).
func rt53bDenyRun(t *testing.T, name, rule, secret, marker string) (flagged, read bool, out, errOut string) {
	t.Helper()
	m := writeManifest(t, "name: "+name+"\npermissions:\n  filesystem:\n    deny: [\""+rule+"\"]\n")
	code, _, vErr := runCLI(t, "validate", m)
	flagged = code != 0 || strings.Contains(vErr, "warning")
	code, out, errOut = runCLI(t, "run", "--manifest", m, "--approve", "--", "/bin/sh", "-c", "cat "+secret+"; echo rt53b-ran")
	if !strings.Contains(out, "rt53b-ran") && !flagged {
		t.Fatalf("premise: the agent did not run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	return flagged, strings.Contains(out, marker), out, errOut
}
