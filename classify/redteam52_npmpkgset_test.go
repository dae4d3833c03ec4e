package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam52NpmPkgSet: `npm pkg set scripts.NAME=CMD` writes a script
// into package.json, which npm then runs through a shell:
//
//	npm pkg set scripts.test='rm -rf ~/.ssh' && npm test        sandboxed
//	npm pkg set scripts.postinstall='rm -rf ~/.ssh'             sandboxed (runs at the user's next npm install)
//
// while writing the same script with echo, `echo
// '{"scripts":{"test":"rm -rf ~/.ssh"}}' > package.json && npm test`, is
// forbidden: the README says npm, yarn and pnpm run every script of a
// written package.json and that those are judged as the code they are.
//
// Why: only package.json text written by a redirection, tee, cp … reaches
// the package.json model (convention.go: writtenCode); `npm pkg set` is a plain npm
// command (rules_allow.go: no rule), its `scripts.*` value is not taken as
// shell text, and a postinstall/prepare/test script planted this way runs
// later with nothing on the line that runs it.
//
// The premise makes a package.json in a fake working directory, runs the
// line (and `npm install --offline` for postinstall) and checks that
// ~/.ssh is gone.
//
// Severity: high (a forbidden command run now or planted, judged
// sandboxed).
// Found by red-team round 52.
// Fixed: npm pkg set scripts.X=VALUE judges VALUE as the shell command npm
// runs (runnerCode).
func TestRedteam52NpmPkgSet(t *testing.T) {
	cases := []struct{ line, after string }{
		{`npm pkg set scripts.test='rm -rf ~/.ssh' && npm test`, ""},
		{`npm pkg set scripts.postinstall='rm -rf ~/.ssh'`, "npm install --offline --no-audit --no-fund"},
	}
	if rtHave(t, "bash", "npm") {
		for _, c := range cases {
			home, work := rt52bHome(t)
			if err := os.WriteFile(filepath.Join(work, "package.json"), []byte(`{"name":"x","version":"1.0.0"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := rt52bRun(t, home, work, c.line)
			if c.after != "" {
				if rt52bGone(home) {
					t.Fatalf("premise: %q itself removed ~/.ssh: %q", c.line, out)
				}
				out += rt52bRun(t, home, work, c.after)
			}
			if !rt52bGone(home) {
				t.Fatalf("premise: %q (then %q) did not remove ~/.ssh (output %q)", c.line, c.after, out)
			}
		}
	}
	// Reference: the same script written with echo.
	rtAtLeast(t, []string{"bash"}, `echo '{"scripts":{"test":"rm -rf ~/.ssh"}}' > package.json && npm test`, Forbidden)
	// Controls.
	rtBelow(t, `npm pkg set version=1.2.3`, Escalated)
	rtBelow(t, `npm pkg set scripts.test='node --test' && npm test`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
}
