package classify

import "strings"

// What the Lua interpreter runs besides its script (found by red-team
// round 58): LUA_INIT_5_x or LUA_INIT (code, or @FILE) before anything
// else, the modules -l loads, and the files its code loads by name
// (require, dofile, loadfile), found on package.path (LUA_PATH, with
// ./?.lua and ./?/init.lua by default). The code of the variables is
// judged as Lua; files the line wrote are judged as the Lua they hold.

// luaInitVar matches the variables lua runs at start: its version's
// LUA_INIT_5_x, else LUA_INIT.
var luaInitVar = lazyRegexp(`^LUA_INIT(_5_[0-9]+)?$`)

// luaLoad matches the calls that load a file or module named by a string
// literal: group 1 is the call, group 2 the name.
var luaLoad = lazyRegexp(`\b(require|dofile|loadfile)\s*\(?\s*["']([^"'\n]+)["']`)

// luaRunsFile matches Lua code that runs text it read from a file
// (load(io.open("x.lua"):read("a"))): its strings may name the file.
var luaRunsFile = lazyRegexp(`(?s)\b(load|loadstring)\s*\(.*\bio\.(open|lines)\b|\bio\.(open|lines)\b.*\b(load|loadstring)\s*\(`)

// luaDefaultPath is the part of Lua's default package.path below the
// working directory.
var luaDefaultPath = []string{"./?.lua", "./?/init.lua"}

// luaStartup judges what a lua command runs before its own code: the
// LUA_INIT variables the line gives it and its -l modules.
func (a *analyzer) luaStartup(u *unit) {
	if spec, ok := interpreterFor(u.name); !ok || spec.lang != "lua" {
		return
	}
	for _, name := range a.luaInitNames(u) {
		f, _ := a.envField(u, name)
		switch {
		case f.dyn:
			a.code(u, "lua", f) // code only known at run time
		case strings.HasPrefix(f.val, "@"):
			a.luaFile(u, f.val[1:])
		default:
			a.moreCode(u, "lua", f.val)
		}
	}
	for _, m := range optValues(u, "l") {
		if _, mod, ok := strings.Cut(m.val, "="); ok {
			m.val = mod // -l g=mod (Lua 5.4)
		}
		if !m.dyn {
			a.luaRequire(u, m.val)
		}
	}
}

// luaInitNames returns the names of the LUA_INIT variables the line sets,
// in the command's assignments or before it.
func (a *analyzer) luaInitNames(u *unit) []string {
	var out []string
	for _, e := range u.env {
		if luaInitVar().MatchString(e.name) && !contains(out, e.name) {
			out = append(out, e.name)
		}
	}
	for name := range a.vars {
		if luaInitVar().MatchString(name) && !contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// luaWrittenCode judges, as Lua, the written files Lua code text loads by
// name.
func (a *analyzer) luaWrittenCode(u *unit, text string) {
	for _, m := range luaLoad().FindAllStringSubmatch(text, -1) {
		if m[1] == "require" {
			a.luaRequire(u, m[2])
		} else {
			a.luaFile(u, m[2])
		}
	}
	if luaRunsFile().MatchString(text) {
		for _, s := range codeStrings(text) {
			a.luaFile(u, s)
		}
	}
}

// luaRequire judges the files the line wrote that require(mod) may load.
func (a *analyzer) luaRequire(u *unit, mod string) {
	name := strings.ReplaceAll(mod, ".", "/")
	for _, t := range a.luaPath(u) {
		a.luaFile(u, strings.ReplaceAll(t, "?", name))
	}
}

// luaPath returns the templates of package.path that may name a file the
// line wrote: LUA_PATH_5_x or LUA_PATH where given (";;" standing for the
// default), else the default's.
func (a *analyzer) luaPath(u *unit) []string {
	for _, v := range []string{"LUA_PATH_5_4", "LUA_PATH_5_3", "LUA_PATH_5_2", "LUA_PATH"} {
		f, ok := a.envField(u, v)
		if !ok || f.dyn {
			continue
		}
		var out []string
		for _, t := range strings.Split(f.val, ";") {
			if t != "" {
				out = append(out, t)
			}
		}
		if strings.Contains(f.val, ";;") {
			out = append(out, luaDefaultPath...)
		}
		return out
	}
	return luaDefaultPath
}

// luaFile judges a file the line wrote as the Lua it holds.
func (a *analyzer) luaFile(u *unit, p string) {
	if len(a.files) > 0 {
		a.writtenLoad(u, "lua", p) // tclcode.go
	}
}
