package classify

import "testing"

// TestRedteam58Yarnrc: yarn (1.x) reads .yarnrc in the working directory
// (and its parents, and ~/.yarnrc) before it does anything, and a
// yarn-path entry makes it hand the whole command to that file, run by
// node. So
//
//	echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.js; echo 'yarn-path "./x.js"' > .yarnrc; yarn --version   sandboxed
//	… yarn install                                                                                                           sandboxed
//
// remove ~/.ssh, as `… node x.js` (forbidden) and a package.json script
// the line wrote (`… yarn t`, forbidden) are judged.
//
// Why: convention.go writtenCode follows yarn's package.json scripts
// only; yarn's own configuration file, whose yarn-path (yarnPath in
// .yarnrc.yml for yarn 2+) names code yarn runs, is not read, and
// toolscripts.go lists no yarn start-up file.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: nodeload.go yarnrcPath: the yarn-path of a .yarnrc (yarnPath of
// .yarnrc.yml; in --cwd's directory, or in the home) the line wrote names
// a program yarn runs with node, judged where the line wrote it.
func TestRedteam58Yarnrc(t *testing.T) {
	rt58aNeed(t, "yarn (npm i -g yarn@1), nodejs", "bash", "yarn", "node")
	const w = `echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.js; echo 'yarn-path "./x.js"' > .yarnrc; `
	attacks := []string{w + `yarn --version`, w + `yarn install`}
	for _, l := range attacks {
		rt58aPremise(t, l, "", rt58aNpmOffline...)
	}
	// Control of the premise: without .yarnrc x.js does not run.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.js; yarn --version`, rt58aNpmOffline...); rt58aGone(home) {
		t.Fatalf("premise: yarn without .yarnrc removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.js; node x.js`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo '{"scripts":{"t":"rm -rf ~/.ssh"}}' > package.json; yarn t`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `echo 'registry "http://127.0.0.1:4873"' > .yarnrc; yarn install`, Escalated)
	rtBelow(t, `yarn install`, Escalated)
}
