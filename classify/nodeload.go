package classify

import (
	"path"
	"strings"
)

// Node's and its package managers' ways of running a module or script
// the line wrote (found by red-team round 58): the modules a node -e/-p
// one-liner requires or imports by path; the packages npm, pnpm, yarn
// and bun run in another directory than the working one (workspaces:
// npm -w NAME, --workspaces; pnpm -r, --filter/-F; yarn workspace(s);
// bun --filter), of which any written package.json may be one; and the
// program yarn hands itself to, the yarn-path of .yarnrc (yarnPath of
// .yarnrc.yml). NODE_OPTIONS with --loader or --experimental-loader loads
// code as -r does (nodeOptionsLoad).

// nodeImports matches a module named by path (or a data: URL) in node
// code: require(…), import(…), import … from "…", import "…".
var nodeImports = lazyRegexp(`(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s*|\bimport\s+)["'` + "`" + `](\.{0,2}/[^"'` + "`" + `]+|data:[^"'` + "`" + `]*)["'` + "`" + `]`)

// nodeModuleExts are the names node tries for a module path.
var nodeModuleExts = []string{"", ".js", ".mjs", ".cjs", "/index.js", "/index.mjs", "/index.cjs"}

// nodeCodeImports judges the written modules node's -e/-p code loads,
// and those the written script or preloaded modules load in turn.
func (a *analyzer) nodeCodeImports(u *unit) {
	if u.name != "node" && u.name != "nodejs" && u.name != "bun" {
		return
	}
	seen := map[string]bool{}
	for _, code := range append(optValues(u, "e", "--eval"), optValues(u, "p", "--print")...) {
		a.nodeImportsOf(u, ".", code, seen)
	}
	files := append(u.operands(), optValues(u, "r", "--require", "--import", "--loader", "--experimental-loader")...)
	for _, f := range files {
		for _, ext := range nodeModuleExts[:4] {
			g := f
			g.val += ext
			for _, t := range a.writtenTexts(u, nil, g) {
				a.nodeImportsOf(u, path.Dir(g.val), field{val: t}, seen)
			}
		}
	}
}

// nodeImportsOf judges the written modules code (in dir) imports by
// path, and theirs in turn, each once.
func (a *analyzer) nodeImportsOf(u *unit, dir string, code field, seen map[string]bool) {
	for _, m := range nodeImports().FindAllStringSubmatch(code.val, -1) {
		name := m[1]
		if strings.HasPrefix(name, "data:") {
			a.dataURLCode(u, name) // import("data:text/javascript;base64,…")
			continue
		}
		if !strings.HasPrefix(name, "/") {
			name = path.Join(dir, name)
		}
		for _, ext := range nodeModuleExts {
			f := field{val: name + ext, dyn: code.dyn}
			key := fileKey(u.cwd, u.links, f)
			if f.dyn || seen[key] {
				continue
			}
			seen[key] = true
			for _, t := range a.writtenTexts(u, nil, f) {
				a.moreCode(u, "node", t)
				a.nodeImportsOf(u, path.Dir(f.val), field{val: t}, seen)
			}
		}
	}
}

// nodeLoaderOpts are the node options (in NODE_OPTIONS too) that load a
// module before the program: its code runs whatever the program is.
var nodeLoaderOpts = []string{"-r", "--require", "--import", "--loader", "--experimental-loader"}

// nodeOptionsLoad reports whether a NODE_OPTIONS value may load a module.
func nodeOptionsLoad(v field) bool {
	for _, o := range nodeLoaderOpts {
		if strings.Contains(v.val, o) {
			return true
		}
	}
	return false
}

// workspaceFlags select the packages a command runs in by name or all of
// them: npm -w/--workspace/--workspaces/--ws, pnpm -r/--recursive,
// --filter/-F/--filter-prod, bun --filter.
var workspaceFlags = []string{"-w", "--workspace", "--workspaces", "--ws", "-r", "--recursive", "--filter", "-F", "--filter-prod"}

// workspaceScripts judges the scripts of every package.json the line
// wrote when u (npm, pnpm, yarn, bun) runs in packages it selects by
// name: any of them may be one selected.
func (a *analyzer) workspaceScripts(u *unit) {
	switch u.name {
	case "npm", "pnpm", "bun":
		if !u.hasWorkspaceFlag() {
			return
		}
	case "yarn":
		if op := u.arg(0); op != "workspace" && op != "workspaces" && !u.hasWorkspaceFlag() {
			return
		}
	default:
		return
	}
	for _, key := range a.writtenFiles(func(k string) bool { return path.Base(k) == "package.json" }) {
		for _, t := range a.keyTexts(u, key) {
			for _, s := range packageScripts(t) {
				a.shellString(u, field{val: s})
			}
		}
	}
}

// hasWorkspaceFlag reports whether one of u's words is a workspaceFlags
// option (alone, with =VALUE, or a short one with its value attached).
func (u *unit) hasWorkspaceFlag() bool {
	for _, f := range u.args {
		if f.val == "--" {
			return false
		}
		for _, o := range workspaceFlags {
			if f.val == o || strings.HasPrefix(f.val, o+"=") || len(o) == 2 && strings.HasPrefix(f.val, o) && !strings.HasPrefix(f.val, "--") {
				return true
			}
		}
	}
	return false
}

// yarnPath matches the program a yarn configuration hands yarn to:
// yarn-path "FILE" (.yarnrc) or yarnPath: FILE (.yarnrc.yml).
var yarnPath = lazyRegexp(`(?m)^\s*["']?(?:yarn-path|yarnPath)["']?\s*:?\s*["']?([^"'\s]+)`)

// yarnrcPath judges the written program the .yarnrc or .yarnrc.yml the
// line wrote (in --cwd's directory, or in the home) names, or
// YARN_YARN_PATH does: yarn runs it with node in its own place, whatever
// the command.
func (a *analyzer) yarnrcPath(u *unit) {
	if u.name != "yarn" {
		return
	}
	dir := lastOptValue(u, "", "--cwd")
	for _, rc := range []string{".yarnrc", ".yarnrc.yml", "~/.yarnrc", "~/.yarnrc.yml"} {
		in := dir
		if strings.HasPrefix(rc, "~") {
			in = nil
		}
		for _, t := range a.writtenTexts(u, in, field{val: rc}) {
			a.yarnPathText(u, in, path.Dir(rc), t)
		}
	}
	if f, ok := a.envField(u, "YARN_YARN_PATH"); ok {
		a.yarnProgram(u, dir, f)
	}
}

// yarnPathText judges the written programs the yarn configuration text
// (of the directory rcDir, in dir) names.
func (a *analyzer) yarnPathText(u *unit, dir *field, rcDir, text string) {
	for _, m := range yarnPath().FindAllStringSubmatch(text, -1) {
		p := m[1]
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
			p = path.Join(rcDir, p)
		}
		a.yarnProgram(u, dir, field{val: p})
	}
}

// yarnProgram judges the program yarn hands itself to, where the line
// wrote it.
func (a *analyzer) yarnProgram(u *unit, dir *field, f field) {
	for _, code := range a.writtenTexts(u, dir, f) {
		a.moreCode(u, "node", code)
	}
}

// Package managers' own configuration files that name code they run
// (round 58's family): pnpm's .pnpmfile.cjs (--pnpmfile), whose hooks run
// at install; the preload scripts of bun's bunfig.toml; and .npmrc's
// node-options (NODE_OPTIONS of every script) and script-shell (the
// program that runs them).

// packageManagers are the programs packageManagerConfig reads for.
var packageManagers = newSet("npm", "npx", "pnpm", "yarn", "bun", "bunx")

// bunPreload matches a bunfig.toml preload entry's value.
var bunPreload = lazyRegexp(`(?m)^\s*preload\s*=\s*(.+)$`)

// npmrcLine matches a key=value line of an .npmrc.
var npmrcLine = lazyRegexp(`(?m)^\s*([\w-]+)\s*=\s*(.*?)\s*$`)

// packageManagerConfig judges the code u's written configuration names.
func (a *analyzer) packageManagerConfig(u *unit) {
	if !packageManagers.has(u.name) || len(a.files) == 0 {
		return
	}
	dir := lastOptValue(u, "C", "--prefix", "--dir")
	if d := lastOptValue(u, "", "--cwd"); d != nil {
		dir = d
	}
	switch u.name {
	case "pnpm":
		files := optValues(u, "", "--pnpmfile", "--global-pnpmfile")
		if len(files) == 0 {
			files = []field{{val: ".pnpmfile.cjs"}, {val: ".pnpmfile.mjs"}}
		}
		for _, f := range files {
			a.nodeFile(u, dir, f)
		}
	case "bun", "bunx":
		files := append(optValues(u, "c", "--config"), field{val: "bunfig.toml"}, field{val: "~/.bunfig.toml"})
		for _, f := range files {
			for _, t := range a.writtenTexts(u, dir, f) {
				for _, m := range bunPreload().FindAllStringSubmatch(t, -1) {
					for _, s := range tomlStrings().FindAllStringSubmatch(m[1], -1) {
						a.nodeFile(u, dir, field{val: s[1] + s[2]})
					}
				}
			}
		}
	}
	switch u.name {
	case "npm", "npx", "pnpm", "yarn":
		rcs := append(optValues(u, "", "--userconfig"), field{val: ".npmrc"}, field{val: "~/.npmrc"})
		for _, f := range rcs {
			for _, t := range a.writtenTexts(u, dir, f) {
				a.npmrcText(u, dir, t)
			}
		}
	}
}

// npmrcText judges an .npmrc's node-options and script-shell.
func (a *analyzer) npmrcText(u *unit, dir *field, text string) {
	for _, m := range npmrcLine().FindAllStringSubmatch(text, -1) {
		v := field{val: strings.Trim(m[2], `"'`)}
		switch m[1] {
		case "node-options":
			if nodeOptionsLoad(v) {
				u.script = &stream{traits: trUnknown}
			}
		case "script-shell":
			texts := a.writtenTexts(u, dir, v)
			for _, t := range texts {
				a.script(t, nil) // a script of the line's own runs each package script
			}
			if len(texts) == 0 && shellVarRisky(v) {
				u.script = &stream{traits: trUnknown}
			}
		}
	}
}

// nodeFile judges a written file node runs, and the written modules it
// loads.
func (a *analyzer) nodeFile(u *unit, dir *field, f field) {
	for _, t := range a.writtenTexts(u, dir, f) {
		a.moreCode(u, "node", t)
		a.nodeImportsOf(u, path.Dir(f.val), field{val: t}, map[string]bool{})
	}
}

// keepPriorCode returns what, deferred, joins what u was found to do
// before its own code was scanned (a written file its options or
// convention load: ruby -r./x, node -r ./x.js, rake's Rakefile) to what
// that code does, which replaces it.
func keepPriorCode(u *unit) func() {
	prior := u.code
	return func() {
		switch {
		case prior == nil || u.code == prior:
		case u.code == nil:
			u.code = prior
		default:
			u.code.merge(*prior)
		}
	}
}
