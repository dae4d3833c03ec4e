package classify

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRedteam46Leads: two leads red-team round 46 named without a test:
// gpg takes any unambiguous prefix of a long option, so
// `gpg --export-secret-ke` exports the secret keys as --export-secret-keys
// does (escalated) but was sandboxed; and `getent shadow` prints
// /etc/shadow's hashes where it runs as root (allow before). The premise
// checks that gpg accepts the abbreviation (an unknown option is refused)
// and, as root, that getent shadow prints an entry.
func TestRedteam46Leads(t *testing.T) {
	if gpg, err := exec.LookPath("gpg"); err == nil {
		cmd := exec.Command(gpg, "--batch", "--export-secret-ke")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "invalid option") {
			t.Fatalf("premise: gpg refused --export-secret-ke: %v: %s", err, out)
		}
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("getent", "shadow", "root").Output(); err != nil || !strings.HasPrefix(string(out), "root:") {
			t.Fatalf("premise: getent shadow root as root: %v: %q", err, out)
		}
	}
	for _, l := range []string{`gpg --export-secret-ke -a`, `gpg2 --armor --export-secret-sub`, `getent shadow`, `getent gshadow root`} {
		for _, sh := range []string{"bash", "dash"} {
			judgedAtLeast(t, sh, l, Escalated)
		}
	}
	for _, l := range []string{`gpg --export -a me@example.com`, `getent passwd root`, `gpg --list-secret-keys`} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}
}
