package classify

import "testing"

// TestRedteam58LuaInit: the Lua interpreter runs LUA_INIT_5_4 or LUA_INIT
// (code, or @FILE: a file) before anything else, loads a module with -l
// (found on package.path, ./?.lua by default), and a one-liner may load a
// file the line wrote (dofile, require). So
//
//	LUA_INIT='os.execute("rm -rf ~/.ssh")' lua -e 'print(1)'                  sandboxed
//	LUA_INIT_5_4='os.execute("rm -rf ~/.ssh")' lua -e 'print(1)'              sandboxed
//	echo 'os.execute("rm -rf ~/.ssh")' > x.lua; LUA_INIT=@x.lua lua -e 'print(1)'   sandboxed
//	… lua -l x -e 'print(1)'   … lua -e 'dofile("x.lua")'   … lua -e 'require "x"'   sandboxed
//
// remove ~/.ssh, as `lua -e 'os.execute("rm -rf ~/.ssh")'` and `… lua
// x.lua` (forbidden) and `PERL5OPT=… perl`, `RUBYOPT=… ruby` (escalated)
// are judged.
//
// Why: rules_exec.go loaderVars/riskyEnv do not list LUA_INIT or
// LUA_INIT_5_x (nor is their code judged as Lua); shells.go gives lua
// -l as an option with a value and nothing more (the module the line
// wrote is not followed); dofile/require of a written file in -e code
// are followed only for code read from standard input (stdineval.go).
//
// Severity: high (rm -rf ~/.ssh judged sandboxed; the first two need no
// file at all).
// Found by red-team round 58.
// Fixed: luacode.go luaStartup (from dispatch.go) judges the LUA_INIT/LUA_INIT_5_x code as Lua (a run-time value as eval-exec) and follows @FILE and -l modules; luaWrittenCode (from shells.go codeText) follows require/dofile/loadfile of written files on LUA_PATH (./?.lua, ./?/init.lua by default); runInterpreter keeps what was found before the inline code.
func TestRedteam58LuaInit(t *testing.T) {
	rt58aNeed(t, "lua5.4", "bash", "lua")
	const (
		j = `os.execute("rm -rf ~/.ssh")`
		w = `echo '` + j + `' > x.lua; `
	)
	attacks := []string{
		`LUA_INIT='` + j + `' lua -e 'print(1)'`,
		`LUA_INIT_5_4='` + j + `' lua -e 'print(1)'`,
		w + `LUA_INIT=@x.lua lua -e 'print(1)'`,
		w + `lua -l x -e 'print(1)'`,
		w + `lua -e 'dofile("x.lua")'`,
		w + `lua -e 'require "x"'`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	// Control of the premise: the one-liner alone.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `lua -e 'print(1)'`); rt58aGone(home) {
		t.Fatalf("premise: lua -e alone removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `lua -e '`+j+`'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, w+`lua x.lua`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `RUBYOPT=-r./x ruby -e 1`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `LUA_PATH='./lib/?.lua;;' lua main.lua`, Escalated)
	rtBelow(t, `lua -l lpeg -e 'print(lpeg.version)'`, Escalated)
}
