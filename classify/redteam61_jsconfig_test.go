package classify

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRedteam61JSToolConfig: the JavaScript tools of every web project
// load their configuration as a module, running its code at start-up:
// eslint (eslint.config.js; .eslintrc.js before v9), prettier
// (prettier.config.js, .prettierrc.cjs), jest (jest.config.js), mocha
// (.mocharc.js), webpack (webpack.config.js), rollup -c (rollup.config.js),
// vite (vite.config.js), babel (babel.config.js), postcss-cli
// (postcss.config.js). A line that writes one and runs the tool runs its
// code:
//
//	echo 'require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})' > eslint.config.js; npx eslint .            sandboxed
//	(the same) > jest.config.js; npx jest, > .prettierrc.cjs; npx prettier --check ., > webpack.config.js; node_modules/.bin/webpack, …  sandboxed
//	echo '{"scripts":{"lint":"eslint ."}}' > package.json; (the same) > eslint.config.js; npm run lint                          sandboxed
//
// remove ~/.ssh, where `node eslint.config.js` after the same write is
// judged (escalated), as is a written Makefile, setup.py, noxfile.py or
// .envrc the line's tool runs.
//
// Why: nothing in the classifier knows these configuration files
// (toolscripts.go:runnerCode has runners for Python, Go, npm's own
// package.json and .npmrc, nodeload.go the package managers' .pnpmfile.cjs
// and yarn-path; none for the tools npx, npm exec and node_modules/.bin
// start), so the written code is data and `npx eslint .` falls through to
// sandboxed.
//
// The premise installs into the working directory, as npm does (offline),
// a stand-in for each tool that loads its configuration file as the real
// one does (the first of its names found in the working directory, with
// import()); it runs each line with the real npm/npx in a fake home and
// checks that its ~/.ssh is gone, and that the same line with a harmless
// configuration leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: jstools.go, jsToolConfig
// judges the written configuration modules of a table of tools (jsTools:
// their base names with every JS/TS extension, their --config options),
// for the tool by any name it runs under, and all of them for a package
// manager (npm run, npm test, yarn build) whose scripts may start them.
func TestRedteam61JSToolConfig(t *testing.T) {
	const js = `require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})`
	write := func(file string) string { return `echo '` + js + `' > ` + file + `; ` }
	tools := map[string][]string{
		"eslint":   {"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", ".eslintrc.js", ".eslintrc.cjs"},
		"prettier": {"prettier.config.js", ".prettierrc.js", ".prettierrc.cjs", "prettier.config.cjs"},
		"jest":     {"jest.config.js", "jest.config.cjs", "jest.config.mjs"},
		"mocha":    {".mocharc.js", ".mocharc.cjs"},
		"webpack":  {"webpack.config.js", "webpack.config.cjs"},
		"rollup":   {"rollup.config.js", "rollup.config.mjs"},
		"vite":     {"vite.config.js", "vite.config.mjs"},
		"babel":    {"babel.config.js", ".babelrc.js", "babel.config.cjs"},
		"postcss":  {"postcss.config.js", ".postcssrc.js", "postcss.config.cjs"},
	}
	attacks := []string{
		write("eslint.config.js") + `npx eslint .`,
		write(".eslintrc.js") + `node_modules/.bin/eslint src`,
		write("prettier.config.js") + `npx prettier --check .`,
		write(".prettierrc.cjs") + `npm exec -- prettier --write src`,
		write("jest.config.js") + `npx jest`,
		write(".mocharc.js") + `npx mocha`,
		write("webpack.config.js") + `node_modules/.bin/webpack`,
		write("rollup.config.js") + `npx rollup -c`,
		write("vite.config.js") + `npx vite build`,
		write("babel.config.js") + `npx babel src -d lib`,
		write("postcss.config.js") + `npx postcss src/a.css -o out.css`,
		`echo '{"scripts":{"lint":"eslint ."}}' > package.json; ` + write("eslint.config.js") + `npm run lint`,
	}
	rt60aNeed(t, "npm", "node", "npm", "npx")
	setup := func(t *testing.T, work string) {
		for name, configs := range tools {
			list, _ := json.Marshal(configs)
			rt61aNodePkg(t, work, name, `const fs = require("fs"), path = require("path"), url = require("url");
const f = `+string(list)+`.map((c) => path.resolve(c)).find((p) => fs.existsSync(p));
(f ? import(url.pathToFileURL(f).href) : Promise.resolve()).then(() => console.log("`+name+` ok"));`)
		}
	}
	for _, l := range attacks {
		rt61aPremise(t, setup, l, strings.ReplaceAll(l, js, `module.exports = {}`), rt61aNpmEnv...)
	}
	// References: the same written code run by node, and a written
	// Makefile run by make.
	rtAtLeast(t, []string{"bash"}, write("eslint.config.js")+`node eslint.config.js`, Escalated)
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday configurations and runs.
	rtBelow(t, `npx eslint .`, Escalated)
	rtBelow(t, `npx prettier --check .`, Escalated)
	rtBelow(t, `echo 'module.exports = {semi: false, singleQuote: true}' > prettier.config.js; npx prettier --write src`, Escalated)
	rtBelow(t, `echo 'module.exports = {testEnvironment: "node"}' > jest.config.js; npx jest`, Escalated)
	rtBelow(t, `echo 'export default [{rules: {semi: "error"}}]' > eslint.config.js; npx eslint .`, Escalated)
}
