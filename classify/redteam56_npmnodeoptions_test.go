package classify

import "testing"

// rt56aNpmOffline keeps npm off the network in a premise: offline, no
// update check, and a registry on a closed loopback port.
var rt56aNpmOffline = []string{"npm_config_offline=true", "npm_config_update_notifier=false",
	"npm_config_registry=http://127.0.0.1:9/", "npm_config_audit=false", "npm_config_fund=false"}

// TestRedteam56NpmNodeOptions: npm's node-options setting (npm
// --node-options=…, or npm_config_node_options in the environment) is
// put in NODE_OPTIONS for every script npm runs, so a node the script
// starts loads what --require names; and npx (npm exec) of a local
// package directory runs the package's bin. So
//
//	echo '{"scripts":{"test":"node -e 1"}}' > package.json; echo "$J" > x.js; npm_config_node_options='--require ./x.js' npm test   sandboxed
//	… npm test --node-options='--require ./x.js'                                                                                  sandboxed
//	mkdir p; echo '{"name":"p","version":"1.0.0","bin":{"p":"x.js"}}' > p/package.json; printf '#!/usr/bin/env node\n%s\n' "$J" > p/x.js; npx -y ./p   sandboxed
//
// with J = require("child_process").execSync("rm -rf ~/.ssh") delete
// ~/.ssh, as `NODE_OPTIONS='--require ./x.js' npm test` (escalated,
// eval-exec) and `node p/x.js` (forbidden) do.
//
// Why: rules_exec.go riskyEnv reads NODE_OPTIONS only under that name,
// not npm's own name for it (npm_config_node_options, or the
// --node-options option npm turns into it); and npx/npm exec is followed
// as a wrapper of the command it names (wrappers.go), but a local path
// (./p) is a package whose bin the line wrote, which is not looked up in
// the package.json the line wrote.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: rules_exec.go (npm_config_node_options is NODE_OPTIONS),
// toolscripts.go (npm --node-options, npxLocal).
func TestRedteam56NpmNodeOptions(t *testing.T) {
	const (
		j    = `require("child_process").execSync("rm -rf ~/.ssh")`
		pkg  = `echo '{"scripts":{"test":"node -e 1"}}' > package.json; echo '` + j + `' > x.js; `
		envL = pkg + `npm_config_node_options='--require ./x.js' npm test`
		optL = pkg + `npm test --node-options='--require ./x.js'`
		npxL = `mkdir -p p; echo '{"name":"p","version":"1.0.0","bin":{"p":"x.js"}}' > p/package.json; printf '#!/usr/bin/env node\n%s\n' '` + j + `' > p/x.js; npx -y ./p`
	)
	if rtHave(t, "bash", "npm", "npx", "node") {
		for _, l := range []string{envL, optL, npxL} {
			home, work := rt56aHome(t)
			out := rt56aRun(t, home, work, l, rt56aNpmOffline...)
			if !rt56aGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", l, out)
			}
		}
		// Control of the premise: without the option x.js does not run.
		home, work := rt56aHome(t)
		if out := rt56aRun(t, home, work, pkg+`npm test`, rt56aNpmOffline...); rt56aGone(home) {
			t.Fatalf("premise: npm test alone removed ~/.ssh (output %q)", out)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, pkg+`NODE_OPTIONS='--require ./x.js' npm test`, Escalated)
	rtAtLeast(t, []string{"bash"}, `mkdir -p p; printf '#!/usr/bin/env node\n%s\n' '`+j+`' > p/x.js; node p/x.js`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, envL, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, optL, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, npxL, Escalated)
	// Controls.
	rtBelow(t, pkg+`npm test --node-options=--max-old-space-size=4096`, Escalated)
	rtBelow(t, `npx -y ./tools/lint`, Escalated)
}
