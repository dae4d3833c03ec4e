package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam42AmpRedirect: &> under dash. bash reads true &>/dev/null
// rm -rf ~ as one command, true, with rm, -rf and ~ its arguments; dash has
// no &>: it runs true & and then >/dev/null rm -rf ~ (shown below with an
// echo marker written to a file). Found by red-team round 42 (high): the
// classifier read every line as bash and allowed it. Fixed: a line Exec
// runs with /bin/sh is judged as dash reads it too (ClassifyShell), where
// &> is a parse error, escalated.
func TestRedteam42AmpRedirect(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if p, err := exec.LookPath("dash"); err == nil {
		_ = exec.Command(p, "-c", "true &>"+out+" echo PWNED42; wait").Run()
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), "PWNED42") {
			t.Fatalf("premise: dash did not run the command after &>FILE: %q", b)
		}
	}
	for _, s := range []string{"true &>/dev/null rm -rf ~", "ls &>/tmp/l rm -rf ~"} {
		if r := Default().ClassifyShell("dash", s); r.Decision < Escalated {
			t.Errorf("ClassifyShell(dash, %q) = %s (rule %q): dash runs rm -rf ~ after `true &`", s, r.Decision, r.Rule)
		}
	}
	// Control: read as bash, the line without rm is harmless and allowed.
	if r := Default().ClassifyShell("bash", "true &>/dev/null"); r.Decision > Sandboxed {
		t.Errorf("control: true &>/dev/null in bash = %s", r.Decision)
	}
}
