package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam53BraceDenyDeniesNothing: a path rule holding a pattern
// character that names no file is refused ("*.pem" would deny nothing:
// policy/manifest_decode.go:globChars), as is one holding $NAME or $(…)
// (round 50). Brace alternation, which bash, zsh and ksh expand and which
// people write to deny several files at once ("~/notes/{secret.txt,
// keys.txt}", "/srv/app/{.env,.env.local}"), is neither: the rule is
// taken literally, names no file, validate calls the manifest valid
// without a warning, and every file the author listed stays readable to
// the agent.
//
// Attack: a manifest with deny: ["~/notes/{secret.txt,keys.txt}"]; the
// agent runs cat on ~/notes/secret.txt (bash expands the rule to both
// files, as the premise checks).
//
// Why it works: policy/manifest_decode.go:(*decoder).path checks
// strings.ContainsAny(s, globChars) with globChars = "*?[" and
// shellExpansion(s) only for '$'; '{' is in neither.
//
// Severity: high (a read of a path the manifest denies, with validate
// calling the manifest valid), as rounds 17 and 50 rated the $VAR forms.
// Found by red-team round 53. Fixed: a path with a brace expansion ({a,b},
// {1..3}) that names no file is refused as a pattern (braceExpansion).
func TestRedteam53BraceDenyDeniesNothing(t *testing.T) {
	runEnv(t)
	base := publicTempDir(t)
	home := filepath.Join(base, "home")
	secret := filepath.Join(home, "notes", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("RT53B-BRACESECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	rule := "~/notes/{secret.txt,keys.txt}"
	// Premise: bash reads the rule as the author meant it.
	if bash, err := exec.LookPath("bash"); err == nil {
		got, err := rt53bShell(bash, "echo "+rule)
		if err != nil || !strings.Contains(got, secret+" ") {
			t.Fatalf("premise: bash expands %q to %q (%v)", rule, got, err)
		}
	} else {
		t.Fatalf("premise: no bash: %v", err)
	}
	for _, tc := range []struct{ name, rule string }{
		{"literal_control", "~/notes/secret.txt"},
		{"glob_control", "~/notes/*.txt"},
		{"braces", rule},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flagged, read, out, errOut := rt53bDenyRun(t, "rt53b-bracedeny", tc.rule, secret, "RT53B-BRACESECRET")
			switch tc.name {
			case "literal_control":
				if read || flagged {
					t.Errorf("control %q: validate flagged %v, agent read the file %v (stdout %q, stderr %q)", tc.rule, flagged, read, out, errOut)
				}
			case "glob_control":
				if !flagged {
					t.Errorf("control %q: the pattern check is off (validate called it valid)", tc.rule)
				}
			default:
				if !flagged && read {
					t.Errorf("deny %q: validate called it valid without a warning, and the agent read %s", tc.rule, secret)
				}
			}
		})
	}
}

func rt53bShell(shell, script string) (string, error) {
	b, err := exec.Command(shell, "-c", script).Output()
	return string(b), err
}
