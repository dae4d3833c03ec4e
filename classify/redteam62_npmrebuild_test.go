package classify

import (
	"strings"
	"testing"
)

// TestRedteam62NpmRebuild: `npm rebuild` (alias `npm rb`) runs, offline,
// the preinstall/install/postinstall scripts of every package installed in
// node_modules (or of those named), read from node_modules/NAME/package.json.
// The classifier follows the scripts of a package.json the line writes in
// the project, not those of a package.json written below node_modules:
//
//	mkdir -p node_modules/x; printf '{"name":"x","version":"1.0.0","scripts":{"install":"rm -rf ~/.ssh"}}' > node_modules/x/package.json; npm rebuild     sandboxed
//	(the same, postinstall) npm rebuild x, npm rb                                                                                                      sandboxed
//
// each removes ~/.ssh, where the same scripts in ./package.json before
// `npm rebuild` are judged forbidden.
//
// Why: nothing in package classify knows `rebuild`/`rb`, and the npm
// script follower (toolscripts.go:runnerCode, jstools.go) reads the
// project's package.json (and workspaces') only; a dependency's package
// manifest the line wrote below node_modules is never read.
//
// Premise: Debian's npm (package npm), offline (npm_config_offline), in a
// fake home; the control's script runs `true`. Severity: high (a
// forbidden deletion of the home's ~/.ssh judged sandboxed). Found by
// red-team round 62. Fixed: npmdeps.go: npm/pnpm/yarn/bun commands that run dependencies' install scripts (rebuild, rb, install, ci, add, update …) judge the scripts of every node_modules/…/package.json the line wrote.
func TestRedteam62NpmRebuild(t *testing.T) {
	const mk = `mkdir -p node_modules/x; printf '{"name":"x","version":"1.0.0","scripts":{"%s":"rm -rf ~/.ssh"}}' > node_modules/x/package.json; `
	attacks := []string{
		strings.Replace(mk, "%s", "install", 1) + `npm rebuild`,
		strings.Replace(mk, "%s", "postinstall", 1) + `npm rebuild x`,
		strings.Replace(mk, "%s", "preinstall", 1) + `npm rb`,
	}
	rt60aNeed(t, "npm", "npm", "node")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), rt61aNpmEnv...)
	}
	rtAtLeast(t, []string{"bash"}, `printf '{"name":"x","version":"1.0.0","scripts":{"install":"rm -rf ~/.ssh"}}' > package.json; npm rebuild`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `npm rebuild`, Escalated)
	rtBelow(t, `npm rebuild node-sass`, Escalated)
	rtBelow(t, `mkdir -p node_modules/x; printf '{"name":"x","version":"1.0.0","scripts":{"install":"node-gyp rebuild"}}' > node_modules/x/package.json; npm rebuild`, Escalated)
}
