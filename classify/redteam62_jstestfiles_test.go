package classify

import (
	"strings"
	"testing"
)

// TestRedteam62MochaTestFiles: a JavaScript test runner loads the test
// files it finds (mocha: ./test/*.{js,cjs,mjs} by default, the files or
// directories named, --recursive) and the modules of --require (also
// given as "require" in .mocharc.json/.mocharc.yml), running their code.
// The classifier follows the tool's configuration module (jest.config.js,
// .mocharc.js …) but not the test files or required modules the line
// wrote, though it judges the very same file run by `node`:
//
//	mkdir -p test; printf 'require("child_process").execSync("rm -rf ~/.ssh");\nit("x", () => {});\n' > test/a.js; mocha   sandboxed
//	(the same) > a.test.js; mocha a.test.js; > spec/a.spec.js; mocha --recursive spec                                       sandboxed
//	printf '…' > h.js; mocha --require ./h.js                                                                               sandboxed
//	printf '{"require":"./h.js"}' > .mocharc.json; printf '…' > h.js; mocha                                                 sandboxed
//
// each removes ~/.ssh, where `node a.js` on the same text is forbidden.
//
// Why: jstools.go:jsToolConfig judges only the configuration modules of
// jsTools (mocha: .mocharc.{js,cjs,…}); the test files a runner loads, its
// --require modules and a JSON/YAML configuration's "require" are not
// followed (the same holds, by the code, for jest's, vitest's, ava's and
// tap's test files: jest/vitest/ava are in jsTools with config bases only).
//
// Premise: Debian's mocha (package mocha; NODE_PATH=/usr/share/nodejs so
// the node on the PATH finds Debian's node modules) in a fake home; the
// control's code does nothing. Severity: high (a forbidden deletion of
// the home's ~/.ssh judged sandboxed). Found by red-team round 62. Fixed: jstestfiles.go: a table of JS test runners (mocha, _mocha, jest, vitest, ava, tap): their written test files (named, below named directories, the defaults), --require-like options and .mocharc.json/.yml require/spec are judged as node code.
func TestRedteam62MochaTestFiles(t *testing.T) {
	const code = `require("child_process").execSync("rm -rf ~/.ssh");`
	attacks := []string{
		`mkdir -p test; printf '` + code + `\nit("x", () => {});\n' > test/a.js; mocha`,
		`printf '` + code + `\nit("x", () => {});\n' > a.test.js; mocha a.test.js`,
		`mkdir -p spec; printf '` + code + `\n' > spec/a.spec.js; mocha --recursive spec`,
		`printf '` + code + `\n' > h.js; mocha --require ./h.js`,
		`printf '{"require":"./h.js"}' > .mocharc.json; printf '` + code + `\n' > h.js; mocha`,
	}
	rt60aNeed(t, "mocha", "mocha", "node")
	env := []string{"NODE_PATH=/usr/share/nodejs"}
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, code, `void 0;`), env...)
	}
	rtAtLeast(t, []string{"bash"}, `printf '`+code+`\n' > a.js; node a.js`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `mocha --recursive test`, Escalated)
	rtBelow(t, `npx mocha 'test/**/*.spec.js'`, Escalated)
	rtBelow(t, `mkdir -p test; printf 'const assert = require("assert");\nit("x", () => assert.ok(1));\n' > test/a.js; mocha`, Escalated)
}
