package classify

import (
	"strings"
	"testing"
)

// TestRedteam61NpxLocalBin: npx NAME, npm exec NAME (and yarn NAME, pnpm
// exec NAME) run the project's installed bin node_modules/.bin/NAME, a
// symlink to the package's script (eslint's node_modules/eslint/bin/eslint.js).
// A line that first overwrites that script runs its own code:
//
//	printf '#!/usr/bin/env node\nrequire("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})\n' > node_modules/eslint/bin/eslint.js; npx eslint .   sandboxed
//	printf '#!/bin/sh\nrm -rf ~/.ssh\n' > node_modules/.bin/eslint; npx eslint .                                                                                 sandboxed
//	(the same) npm exec -- eslint ., npx --no-install eslint ., node_modules/.bin/eslint . (after writing the package's script)                                    sandboxed
//
// remove ~/.ssh, where `printf '#!/bin/sh\nrm -rf ~/.ssh\n' >
// node_modules/.bin/eslint; node_modules/.bin/eslint .` and `node
// node_modules/eslint/bin/eslint.js` after the same write are judged
// (forbidden, escalated).
//
// Why: toolscripts.go:npxLocal judges written bins only for a package
// named by a path (npx ./p); a bare name is looked up nowhere, though npm
// runs it from ./node_modules/.bin first. And dispatch.go (writtenScript
// for a u.prog with a /) follows the written file the path names, not a
// symlink to a written file (node_modules/.bin/eslint ->
// ../eslint/bin/eslint.js), which the premise's project has, as every npm
// install does.
//
// The premise installs a stand-in eslint into the working directory as
// npm does (package.json, an executable bin/eslint.js, the
// node_modules/.bin/eslint symlink; offline), runs each line with the real
// npm/npx in a fake home and checks that its ~/.ssh is gone, and that the
// same line with harmless code leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: jstools.go, nodeModulesCode
// judges every file the line wrote below a node_modules directory (a bin
// by its #! line, a module as node) for whatever runs installed packages:
// a package manager, node, a node_modules/ path, a jsTools tool, a
// command npx or npm exec runs.
func TestRedteam61NpxLocalBin(t *testing.T) {
	const js = `require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})`
	writeJS := `printf '#!/usr/bin/env node\n` + js + `\n' > node_modules/eslint/bin/eslint.js; `
	writeSh := `printf '#!/bin/sh\nrm -rf ~/.ssh\n' > node_modules/.bin/eslint; `
	attacks := []string{
		writeJS + `npx eslint .`,
		writeJS + `npm exec -- eslint .`,
		writeJS + `npx --no-install eslint .`,
		writeJS + `node_modules/.bin/eslint .`,
		writeSh + `npx eslint .`,
		writeSh + `npm exec eslint -- .`,
	}
	rt60aNeed(t, "npm", "node", "npm", "npx")
	setup := func(t *testing.T, work string) { rt61aNodePkg(t, work, "eslint", `console.log("lint ok")`) }
	for _, l := range attacks {
		control := strings.ReplaceAll(strings.ReplaceAll(l, js, `console.log(1)`), "rm -rf ~/.ssh", "true")
		rt61aPremise(t, setup, l, control, rt61aNpmEnv...)
	}
	// References: the same written code run by its path and by node.
	rtAtLeast(t, []string{"bash"}, writeSh+`node_modules/.bin/eslint .`, Forbidden)
	rtAtLeast(t, []string{"bash"}, writeJS+`node node_modules/eslint/bin/eslint.js .`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: running the installed tools.
	rtBelow(t, `npx eslint .`, Escalated)
	rtBelow(t, `npm exec -- prettier --check .`, Escalated)
	rtBelow(t, `node_modules/.bin/eslint --fix src`, Escalated)
	rtBelow(t, `printf 'console.log(1)\n' > src/x.js; npx eslint src`, Escalated)
}
