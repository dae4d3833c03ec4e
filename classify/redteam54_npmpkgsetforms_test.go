package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam54NpmPkgSetForms: round 52 judges `npm pkg set
// scripts.NAME=CMD` as the script it plants, but npm's other spellings of
// the same key are still sandboxed, and npm runs the script through a
// shell at `npm test` (or `npm install` for postinstall):
//
//	npm pkg set 'scripts[test]=rm -rf ~/.ssh' && npm test                          sandboxed
//	npm pkg set 'scripts[postinstall]=rm -rf ~/.ssh'                               sandboxed
//	npm pkg set --json 'scripts={"test":"rm -rf ~/.ssh"}' && npm test              sandboxed
//	npm --prefix . pkg set 'scripts.test=rm -rf ~/.ssh' && npm test                sandboxed
//
// while `npm pkg set scripts.test='rm -rf ~/.ssh' && npm test` is
// forbidden.
//
// Why: the npm pkg set model round 52 added (toolscripts.go) takes a
// script only from a key spelled scripts.NAME right after `npm pkg set`:
// npm's bracket form scripts[NAME], a whole scripts object set with
// --json, and npm's global options before the subcommand (--prefix DIR)
// are not recognised.
//
// The premise runs each line in a fake home and a directory holding a
// package.json (then `npm install --offline` for postinstall) and checks
// that ~/.ssh is gone.
//
// Severity: high (a forbidden command run or planted, judged sandboxed).
// Found by red-team round 54.
// Fixed: scripts[NAME]=, --json scripts={…} and pkg set after other words
// are judged (npmPkgSet).
func TestRedteam54NpmPkgSetForms(t *testing.T) {
	cases := []struct{ line, after string }{
		{`npm pkg set 'scripts[test]=rm -rf ~/.ssh' && npm test`, ""},
		{`npm pkg set 'scripts[postinstall]=rm -rf ~/.ssh'`, "npm install --offline --no-audit --no-fund"},
		{`npm pkg set --json 'scripts={"test":"rm -rf ~/.ssh"}' && npm test`, ""},
		{`npm --prefix . pkg set 'scripts.test=rm -rf ~/.ssh' && npm test`, ""},
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
	// Reference: the dotted key round 52 follows.
	rtAtLeast(t, []string{"bash"}, `npm pkg set scripts.test='rm -rf ~/.ssh' && npm test`, Forbidden)
	// Controls: harmless scripts in the same spellings.
	rtBelow(t, `npm pkg set 'scripts[build]=tsc'`, Escalated)
	rtBelow(t, `npm pkg set --json 'scripts={"test":"node --test"}'`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash"}, c.line, Escalated)
	}
}
