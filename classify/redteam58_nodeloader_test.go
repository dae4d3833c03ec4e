package classify

import "testing"

// TestRedteam58NodeLoader: node runs a module the line wrote when it is
// named by --loader/--experimental-loader (on the command line or in
// NODE_OPTIONS) or loaded by the code of a one-liner (require, import()).
// So, with x.mjs/x.js written just before,
//
//	NODE_OPTIONS=--experimental-loader=./x.mjs node -e 1                 sandboxed
//	node --loader ./x.mjs -e 1   node --experimental-loader=./x.mjs -e 1  sandboxed
//	node -e 'import("./x.mjs")'   node -p 'require("./x")'               sandboxed
//
// remove ~/.ssh, as `node --import ./x.mjs -e 1`, `node -r ./x.js -e 1`
// (forbidden) and `NODE_OPTIONS='-r ./x.js' node -e 1` (escalated) are
// judged.
//
// Why: rules_exec.go riskyEnv takes NODE_OPTIONS as risky only when it
// holds "-r", "--require", "--import" or "--loader" as text, and
// "--experimental-loader" holds none of them; shells.go lists --loader and
// --experimental-loader among node's options with a value, but
// convention.go writtenCode follows the file only for -r/--require/
// --import; and a one-liner's
// require/import of a written module is not followed (the Python
// counterpart, -c 'import x', is).
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: convention.go follows --loader/--experimental-loader as
// -r/--import; rules_exec.go riskyEnv reads NODE_OPTIONS with nodeload.go
// nodeOptionsLoad (a table of the loading options, the loaders among
// them); nodeload.go nodeCodeImports judges the written modules -e/-p code
// names by path in require(), import() and import … from.
func TestRedteam58NodeLoader(t *testing.T) {
	rt58aNeed(t, "nodejs", "bash", "node")
	const (
		esm = `echo 'import {execSync} from "child_process"; execSync("rm -rf ~/.ssh")' > x.mjs; `
		cjs = `echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.js; `
	)
	attacks := []string{
		esm + `NODE_OPTIONS=--experimental-loader=./x.mjs node -e 1`,
		esm + `node --loader ./x.mjs -e 1`,
		esm + `node --experimental-loader=./x.mjs -e 1`,
		esm + `node -e 'import("./x.mjs")'`,
		cjs + `node -p 'require("./x")'`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	// Control of the premise: node -e 1 alone.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `node -e 1`); rt58aGone(home) {
		t.Fatalf("premise: node -e 1 removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, esm+`node --import ./x.mjs -e 1`, Forbidden)
	rtAtLeast(t, []string{"bash"}, cjs+`node -r ./x.js -e 1`, Forbidden)
	rtAtLeast(t, []string{"bash"}, cjs+`NODE_OPTIONS='-r ./x.js' node -e 1`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `node --loader ts-node/esm app.ts`, Escalated)
	rtBelow(t, `NODE_OPTIONS=--max-old-space-size=4096 node build.js`, Escalated)
	rtBelow(t, `node -p 'require("./package.json").version'`, Escalated)
}
