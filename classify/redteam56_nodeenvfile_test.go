package classify

import "testing"

// TestRedteam56NodeEnvFile: node --env-file=FILE (node 20.6 and later)
// loads FILE's variables before it starts, NODE_OPTIONS among them, and
// node then applies those options: a written .env holding
// NODE_OPTIONS="--require ./x.js" loads x.js before the program. So
//
//	printf 'NODE_OPTIONS="--require ./x.js"\n' > .env; echo '…execSync("rm -rf ~/.ssh")' > x.js; node --env-file=.env -e 1    sandboxed
//
// deletes ~/.ssh, as `NODE_OPTIONS='--require ./x.js' node -e 1`
// (escalated, eval-exec) and `node -r ./x.js -e 1` (forbidden) do.
//
// Why: rules_exec.go riskyEnv judges NODE_OPTIONS only as an assignment
// of the line (u.env); node's --env-file (and --env-file-if-exists) is
// not read as setting the variables of the file the line wrote, and
// classifier code for node (runnerCode, node -r) never looks at it.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed; its reference forms
// are escalated and forbidden).
// Found by red-team round 56. Fixed: toolscripts.go (nodeEnvFiles).
func TestRedteam56NodeEnvFile(t *testing.T) {
	const (
		js   = `require("child_process").execSync("rm -rf ~/.ssh")`
		line = `printf 'NODE_OPTIONS="--require ./x.js"\n' > .env; echo '` + js + `' > x.js; node --env-file=.env -e 1`
	)
	if rtHave(t, "bash", "node") {
		rt56aPremise(t, line)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo '`+js+`' > x.js; NODE_OPTIONS='--require ./x.js' node -e 1`, Escalated)
	rtAtLeast(t, []string{"bash"}, `echo '`+js+`' > x.js; node -r ./x.js -e 1`, Forbidden)
	// The attack (escalated at least, as NODE_OPTIONS set on the line is).
	rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `printf 'NODE_OPTIONS=--require=./x.js\n' > .env; echo '`+js+`' > x.js; node --env-file .env app.js`, Escalated)
	// Controls: an env file of ordinary settings.
	rtBelow(t, `printf 'PORT=3000\n' > .env; node --env-file=.env app.js`, Escalated)
	rtBelow(t, `node --env-file=.env app.js`, Escalated)
}
