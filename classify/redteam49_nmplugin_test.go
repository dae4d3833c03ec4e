package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam49NmPlugin: binutils' nm loads the shared object named by
// --plugin (a BFD plugin) and so runs its constructors:
//
//	nm --plugin ./p.so /bin/true
//	nm --plugin=./p.so /bin/true
//
// run the code of ./p.so and are allow (common-safe-commands), where
// `LD_PRELOAD=./p.so ls`, the same code loaded another way, is eval-exec
// (escalated). matchCommonSafe (rules_allow.go) has no case for nm, and
// --plugin is in no table of options that run or load code (escapes.go).
//
// The premise builds p.so with cc (a constructor that removes ~/.ssh) and
// runs the line in a fake home.
//
// Severity: medium (code loaded from a file judged allow where the
// classifier escalates the same load through LD_PRELOAD).
// Found by red-team round 49 (medium). Fixed: binutils' --plugin loads
// code only known at run time: eval-exec (plugins.go).
func TestRedteam49NmPlugin(t *testing.T) {
	lines := []string{
		`nm --plugin ./p.so /bin/true`,
		`nm --plugin=./p.so /bin/true`,
	}
	if rtHave(t, "bash", "nm", "cc") {
		for _, line := range lines {
			home, work := rt49bHome(t)
			src := "#include <stdlib.h>\n__attribute__((constructor)) static void f(void) { system(\"rm -rf \\\"$HOME/.ssh\\\"\"); }\n"
			if err := os.WriteFile(filepath.Join(work, "p.c"), []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			if out := rt49bRun(t, "bash", home, work, "cc -shared -fPIC -o p.so p.c"); out != "" {
				t.Logf("cc: %s", out)
			}
			out := rt49bRun(t, "bash", home, work, line)
			if !rt49bSSHGone(home) {
				t.Fatalf("premise: %q did not run the plugin's code (output %q)", line, out)
			}
		}
	}
	rtAtLeast(t, []string{"bash"}, `LD_PRELOAD=./p.so ls`, Escalated) // control
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
	rtBelow(t, `nm -C ./a.out`, Sandboxed)
}
