package classify

import "testing"

// rt58aNpmOffline keeps npm and pnpm off the network in a premise.
var rt58aNpmOffline = []string{"npm_config_offline=true", "npm_config_update_notifier=false",
	"npm_config_registry=http://127.0.0.1:9/", "npm_config_audit=false", "npm_config_fund=false"}

// TestRedteam58PackageDirs: npm and pnpm run the scripts of a package.json
// in another directory than the working one: pnpm --dir DIR (the long
// form of -C), pnpm --filter NAME and -r (the packages of a
// pnpm-workspace.yaml), npm -w/--workspace NAME and --workspaces (the
// workspaces of the root package.json). So, with
// p/package.json = {"name":"p","scripts":{"x":"rm -rf ~/.ssh"}} written
// on the line,
//
//	… pnpm --dir p x                                                     sandboxed
//	… printf 'packages:\n  - p\n' > pnpm-workspace.yaml; pnpm --filter p x   sandboxed
//	… printf 'packages:\n  - p\n' > pnpm-workspace.yaml; pnpm -r x           sandboxed
//	… echo '{"private":true,"workspaces":["p"]}' > package.json; npm run x -w p   sandboxed
//
// remove ~/.ssh, as `… pnpm -C p x` and `… npm --prefix p run x`
// (forbidden) are judged.
//
// Why: convention.go writtenCode looks for the written package.json in
// the directory of -C/--prefix/--cwd only: pnpm's --dir, its workspace
// selection (--filter/-F, -r/--recursive) and npm's workspaces (-w,
// --workspace, --workspaces) name packages elsewhere, whose scripts are
// then not judged.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: convention.go takes pnpm's --dir as -C; nodeload.go
// workspaceScripts judges the scripts of every package.json the line wrote
// when npm, pnpm, yarn or bun selects packages by name or all of them
// (-w/--workspace/--workspaces/--ws, -r/--recursive, --filter/-F, yarn
// workspace(s)).
func TestRedteam58PackageDirs(t *testing.T) {
	rt58aNeed(t, "npm, pnpm (npm i -g pnpm)", "bash", "npm", "pnpm")
	const (
		p  = `mkdir -p p; echo '{"name":"p","scripts":{"x":"rm -rf ~/.ssh"}}' > p/package.json; `
		ws = `printf 'packages:\n  - p\n' > pnpm-workspace.yaml; `
		nw = `echo '{"private":true,"workspaces":["p"]}' > package.json; `
	)
	attacks := []string{
		p + `pnpm --dir p x`,
		p + ws + `pnpm --filter p x`,
		p + ws + `pnpm -r x`,
		p + nw + `npm run x -w p`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "", rt58aNpmOffline...)
	}
	// Control of the premise: the package alone, run nowhere.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, p+`pnpm --version`, rt58aNpmOffline...); rt58aGone(home) {
		t.Fatalf("premise: writing the package removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, p+`pnpm -C p x`, Forbidden)
	rtAtLeast(t, []string{"bash"}, p+`npm --prefix p run x`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `pnpm --dir packages/web build`, Escalated)
	rtBelow(t, `pnpm -r --filter web test`, Escalated)
	rtBelow(t, `npm run build -w packages/web`, Escalated)
}
