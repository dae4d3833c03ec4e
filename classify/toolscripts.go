package classify

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Files of commands a tool reads in its own language and runs (found by
// red-team round 52): the start-up files of vim, tmux, gdb and sqlite3,
// which run at the user's next start of the tool, outside any sandbox
// (echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf); and script files the
// line wrote and hands to one (gdb -x, vim -u/-S, tmux -f, sqlite3 -init).
// Their text is judged as the tool's commands, as -ex, -c and the like
// are.

// toolScript is one tool's: its language, the start-up files it reads
// (a base name anywhere, or a path ending), and the options naming a
// script it runs.
type toolScript struct {
	lang  string
	rc    []string
	files []string
	env   []string // variables naming a start-up file it reads instead (SCREENRC, IRBRC)
}

var toolScripts = map[string]toolScript{
	"vim":     {lang: "vim", rc: []string{".vimrc", ".exrc", ".gvimrc", "/.vim/vimrc", "/.vim/gvimrc", "/.config/nvim/init.vim", "/.config/vim/vimrc"}},
	"tmux":    {lang: "tmux", rc: []string{".tmux.conf", "/.config/tmux/tmux.conf"}, files: []string{"-f"}},
	"gdb":     {lang: "gdb", rc: []string{".gdbinit", ".gdbearlyinit", "/.config/gdb/gdbinit", "/.config/gdb/gdbearlyinit"}, files: []string{"-x", "--command", "-command", "-ix", "--init-command", "-init-command", "-eix", "--early-init-command"}},
	"sqlite3": {lang: "sqlite", rc: []string{".sqliterc", "/.config/sqlite3/sqliterc"}, files: []string{"-init", "--init"}},
	// pdb runs ~/.pdbrc and ./.pdbrc: its commands, and Python
	// statements (round 55).
	"pdb": {lang: "python", rc: []string{".pdbrc"}},
	// perl -d runs ~/.perldb and ./.perldb as Perl (round 56).
	"perl": {lang: "perl", rc: []string{".perldb"}},
	// less reads its lesskey source at every start (#env LESSOPEN=|cmd).
	"less": {lang: "lesskey", rc: []string{".lesskey", "/.config/lesskey"}},
	// Tcl's: expect runs ~/.expect.rc at every start, an interactive
	// tclsh ~/.tclshrc, wish ~/.wishrc (round 58).
	"expect": {lang: "tcl", rc: []string{".expect.rc"}, files: []string{"-f"}},
	"tclsh":  {lang: "tcl", rc: []string{".tclshrc"}},
	"wish":   {lang: "tcl", rc: []string{".wishrc"}},
	// screen's commands (screencmds.go), irb's and pry's Ruby (round 58).
	"screen": {lang: "screen", rc: []string{".screenrc", "/etc/screenrc"}, files: []string{"-c"}, env: []string{"SCREENRC"}},
	"irb":    {lang: "ruby", rc: []string{".irbrc", "/.config/irb/irbrc", "/.irb/irbrc"}, env: []string{"IRBRC"}},
	"pry":    {lang: "ruby", rc: []string{".pryrc", "/.config/pry/pryrc"}, env: []string{"PRYRC"}},
}

// xdgConfig judges the start-up files u's tool reads below the
// XDG_CONFIG_HOME the line gives it (its rc files under /.config/), where
// the line wrote them: XDG_CONFIG_HOME=. tmux (round 56). Written below
// ~/.config they are judged as they are written.
func (a *analyzer) xdgConfig(u *unit) {
	t, ok := toolScripts[toolProgram[u.name]]
	if !ok {
		return
	}
	dir, set := a.envField(u, "XDG_CONFIG_HOME")
	if !set {
		return
	}
	if dir.dyn {
		dir.val = "." // $PWD and the like: the working directory, most likely
	}
	for _, rc := range t.rc {
		if rel, ok := strings.CutPrefix(rc, "/.config/"); ok {
			a.sourcedFile(u, t.lang, field{val: path.Join(dir.val, rel)})
		}
	}
	if t.lang == "vim" {
		a.sourcedFile(u, "lua", field{val: path.Join(dir.val, "nvim/init.lua")})
	}
}

// pyStartupFile matches the Python files IPython and Jupyter run at every
// start: a profile's startup/ scripts and its configuration, which may
// list more code (exec_lines, exec_files). Found by red-team round 55.
var pyStartupFile = lazyRegexp(`(^|/)(\.ipython/profile_[^/]+/(startup/[^/]+\.i?py|ipython_[a-z]+_config\.py)|\.jupyter/jupyter_[a-z_]+_config\.py)$`)

// toolProgram maps the names a tool runs under to its toolScripts entry.
var toolProgram = map[string]string{"vim": "vim", "vi": "vim", "nvim": "vim", "view": "vim", "ex": "vim", "gvim": "vim",
	"tmux": "tmux", "gdb": "gdb", "sqlite3": "sqlite3", "sqlite": "sqlite3", "less": "less",
	"expect": "expect", "tclsh": "tclsh", "wish": "wish", "screen": "screen", "irb": "irb", "pry": "pry"}

// vimPluginDir matches the directories whose scripts vim and neovim load
// at every start (plugin/, after/plugin/, pack/*/start/*/plugin/, ftplugin
// when a file of its type opens) below their configuration directories
// (round 54).
var vimPluginDir = lazyRegexp(`(^|/)(\.vim|vimfiles|\.config/nvim|\.local/share/nvim/site)/(.*/)?(plugin|ftplugin)/`)

// toolRc returns the language of the tool whose start-up file p is.
func toolRc(p string) (string, bool) {
	c := cleanTarget(p)
	base := c[strings.LastIndexByte(c, '/')+1:]
	switch {
	case vimPluginDir().MatchString(c) && strings.HasSuffix(base, ".vim"):
		return "vim", true
	case (vimPluginDir().MatchString(c) || strings.HasSuffix(c, "/.config/nvim/init.lua") || c == ".config/nvim/init.lua") && strings.HasSuffix(base, ".lua"):
		return "lua", true
	case pyStartupFile().MatchString(c):
		return "python", true
	}
	for _, t := range toolScripts {
		for _, r := range t.rc {
			if r == base || strings.HasPrefix(r, "/") && (strings.HasSuffix(c, r) || strings.HasPrefix("/"+c, r)) {
				return t.lang, true
			}
		}
	}
	return "", false
}

// toolText judges text as commands of the tool language lang, line by line.
func (a *analyzer) toolText(u *unit, lang, text string) {
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return
	}
	a.depth++
	defer func() { a.depth-- }()
	switch lang {
	case "tmux":
		a.tmuxString(u, field{val: text})
		return
	case "lua":
		a.codeText(u, "lua", text)
		return
	case "python":
		// pdb's ! runs a statement; its other commands read as no code.
		a.moreCode(u, "python", strings.ReplaceAll("\n"+text, "\n!", "\n"))
		return
	case "perl", "tcl":
		a.moreCode(u, lang, text)
		return
	case "lesskey":
		a.lesskeyText(u, text)
		return
	case "screen":
		a.screenString(u, text)
		return
	case "ruby":
		a.rubyText(u, nil, ".", text, map[string]bool{})
		return
	}
	prog := ""
	for l := range strings.Lines(text) {
		f := field{val: strings.TrimSpace(l)}
		if f.val == "" {
			continue
		}
		switch lang {
		case "vim":
			a.vimEx(u, f) // :!cmd too
		case "gdb":
			a.gdbCommand(u, f, &prog, 0)
		case "sqlite":
			a.sqliteDot(u, f)
		}
	}
}

// sourcedFile judges a file a tool's own command loads (gdb source, vim
// :source, sqlite3 .read, tmux source-file) where the line wrote it.
func (a *analyzer) sourcedFile(u *unit, lang string, f field) {
	for _, t := range a.writtenTexts(u, nil, f) {
		a.toolText(u, lang, t)
	}
}

// gdbSourceCmd and vimSourceCmd match the commands that load a file.
var (
	gdbSourceCmd = lazyRegexp(`^\s*source\s+(?:-[sv]\s+)*(\S+)`)
	vimSourceCmd = lazyRegexp(`(?:^|\|)[\s:]*so(?:u(?:r(?:c(?:e)?)?)?)?!?\s+(\S+)`)
)

// gdbSource follows gdb's source FILE (-ex 'source x.gdb', or in a file).
func (a *analyzer) gdbSource(u *unit, f field) {
	if m := gdbSourceCmd().FindStringSubmatch(f.val); m != nil {
		a.sourcedFile(u, "gdb", field{val: m[1], dyn: f.dyn})
	}
}

// vimSource follows vim's :source FILE (-c 'source x.vim', or in a file).
func (a *analyzer) vimSource(u *unit, f field) {
	for _, m := range vimSourceCmd().FindAllStringSubmatch(f.val, -1) {
		a.sourcedFile(u, "vim", field{val: m[1], dyn: f.dyn})
	}
}

// toolRcText judges what u writes to a tool's start-up file: known text as
// the tool's commands, text only known at run time as eval-exec.
func (a *analyzer) toolRcText(u *unit, target string, out stream) {
	lang, ok := toolRc(target)
	if !ok {
		return
	}
	if !out.textKnown && out.lines == "" && !a.funcCall(u) {
		a.unknownRunText(u, "writes text only known at run time to "+target+", which "+lang+" runs at its next start")
	}
	runTexts(out, func(t string, _ *stream) stream { a.toolText(u, lang, t); return stream{} })
}

// toolScriptFiles judges the script files the line wrote that u's options
// hand to its tool.
func (a *analyzer) toolScriptFiles(u *unit) {
	t, ok := toolScripts[toolProgram[u.name]]
	if !ok {
		return
	}
	for _, v := range t.env {
		if f, ok := a.envField(u, v); ok {
			a.sourcedFile(u, t.lang, f) // SCREENRC=x.rc screen, IRBRC=y.rb irb
		}
	}
	if t.lang == "vim" {
		a.vimRuntime(u) // set rtp+=DIR, :runtime, :packadd (vimruntime.go)
	}
	exMode := slices.ContainsFunc(u.args, func(f field) bool { return f.val == "-e" || f.val == "-E" || f.val == "-es" || f.val == "-Es" })
	for i, f := range u.args {
		if t.lang == "vim" && f.val == "-s" && !exMode && i+1 < len(u.args) {
			// -s FILE types FILE's keys at start (round 56); in ex
			// mode -s is silence.
			a.sourcedFile(u, "vim", u.args[i+1])
			continue
		}
		if t.lang == "vim" && vimFileOpt(f.val) {
			// -Nu x.vim: a cluster ending in u or S; -S alone loads
			// Session.vim.
			file := field{val: "Session.vim"}
			if i+1 < len(u.args) && !strings.HasPrefix(u.args[i+1].val, "-") {
				file = u.args[i+1]
			} else if strings.HasSuffix(f.val, "u") {
				continue
			}
			a.sourcedFile(u, "vim", file)
			continue
		}
		for _, o := range t.files {
			var file field
			switch {
			case f.val == o && i+1 < len(u.args):
				file = u.args[i+1]
			case strings.HasPrefix(f.val, o+"="):
				file = f
				file.val = f.val[len(o)+1:]
			default:
				continue
			}
			for _, text := range a.writtenTexts(u, nil, file) {
				a.toolText(u, t.lang, text)
			}
		}
	}
}

// vimFileOpt reports whether a vim argument is a cluster of short flags
// that ends in -u (a vimrc) or -S (a session file).
func vimFileOpt(v string) bool {
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if !strings.ContainsRune("NnEesRZbdhlmMyAHFL", c) {
			return false
		}
	}
	return v[len(v)-1] == 'u' || v[len(v)-1] == 'S'
}

// Test runners, builders and generators that run code from files by
// their names (found by red-team round 52): python -m unittest, doctest
// and pytest run test files, pip install DIR runs DIR/setup.py, node
// --test runs test files, go generate runs the //go:generate lines of Go
// files. The files the line wrote that they would run are judged.

// testFile are the base names the runners find by themselves.
var testFile = lazyRegexp(`^(test[_-]?[^/]*\.py|[^/]*_test\.py|conftest\.py|test\.(c|m)?js|test-[^/]*\.(c|m)?js|[^/]*[._-]test\.(c|m)?js)$`)

// runnerCode judges the files the line wrote that the runner u runs.
func (a *analyzer) runnerCode(u *unit) {
	ops := u.operands()
	a.pyScriptRun(u)     // python -m pdb/cProfile/trace x.py (round 55)
	a.pyMainOf(u)        // python3 d, python3 -m d: d/__main__.py (round 56)
	a.pyRunnerConfigs(u) // tox.ini, noxfile.py, .pre-commit-config.yaml, pytest's -p (round 60)
	a.direnvCode(u)      // direnv allow/exec: the written .envrc (round 60)
	a.terraformCode(u)   // terraform apply: local-exec, external (round 60)
	a.ansibleCode(u)     // ansible -a, written playbooks and inventories (round 60)
	a.buildSystemCode(u) // cmake, ninja, meson, scons, autoconf, ant … (buildsystems.go, round 62)
	switch u.name {
	case "unittest", "doctest", "pytest", "py.test":
		a.writtenRun(u, ops, "python", ".py")
	case "prove":
		a.proveFiles(u) // t/*.t (perlscripts.go, round 62)
	case "pip", "pip3":
		a.pipBuildCode(u) // install, wheel, download: the projects named (piplocal.go)
	case "build", "pyproject-build":
		a.pypaBuildCode(u) // python3 -m build, pyproject-build: the project (pybuild.go, round 62)
	case "node", "nodejs":
		if u.hasExactFlag("", "--test") {
			a.writtenRun(u, ops, "node", ".js")
		}
		a.nodeEnvFiles(u)
	case "go":
		if u.arg(0) == "generate" {
			a.goGenerate(u)
		}
		a.goPackageCode(u) // go run ., go test ./... (goruns.go)
	case "npm", "pnpm":
		a.npmPkgSet(u)
	}
	a.npmNodeOptions(u)
	a.npmDepScripts(u) // npm rebuild: node_modules/X/package.json's scripts (npmdeps.go, round 62)
	a.npxLocal(u)
	a.jsToolConfig(u)    // eslint.config.js, jest.config.js … (jstools.go, round 61)
	a.jsTestFiles(u)     // mocha's test/*.js, --require, .mocharc.json (jstestfiles.go, round 62)
	a.nodeModulesCode(u) // npx NAME: a written node_modules/.bin/NAME (jstools.go, round 61)
	a.xdgConfig(u)
	a.gitRunConfig(u)
}

// npmNodeOptions: npm's --node-options (and the npm_config_ variable,
// riskyEnv) are the NODE_OPTIONS of the scripts it runs (round 56).
func (a *analyzer) npmNodeOptions(u *unit) {
	if u.name != "npm" && u.name != "pnpm" && u.name != "npx" {
		return
	}
	for _, f := range optValues(u, "", "--node-options") {
		if riskyEnv(envVar{name: "NODE_OPTIONS", val: f}) {
			u.script = &stream{traits: trUnknown}
		}
	}
}

// npxLocal judges the bin scripts of a package the line wrote that npx
// (npm exec) runs by its path (npx ./p): round 56.
func (a *analyzer) npxLocal(u *unit) {
	ops := u.operands()
	if u.name == "npm" && len(ops) > 0 && ops[0].val == "exec" {
		ops = ops[1:]
	} else if u.name != "npx" {
		return
	}
	for _, op := range ops {
		if !strings.HasPrefix(op.val, ".") && !strings.HasPrefix(op.val, "/") {
			continue
		}
		for _, t := range a.writtenTexts(u, nil, field{val: path.Join(op.val, "package.json"), dyn: op.dyn}) {
			var pkg struct {
				Bin json.RawMessage `json:"bin"`
			}
			if json.Unmarshal([]byte(t), &pkg) != nil {
				continue
			}
			var one string
			many := map[string]string{}
			if json.Unmarshal(pkg.Bin, &one) == nil {
				many[""] = one
			} else {
				_ = json.Unmarshal(pkg.Bin, &many)
			}
			for _, bin := range many {
				for _, code := range a.writtenTexts(u, nil, field{val: path.Join(op.val, bin)}) {
					a.moreCode(u, "node", code)
				}
			}
		}
		break // the package; the rest are its arguments
	}
}

// writtenRun judges as lang the written files a runner is named (module
// names as files too), or, named none or a directory, the written files
// it finds by their names.
func (a *analyzer) writtenRun(u *unit, ops []field, lang, ext string) {
	named := false
	for _, op := range ops {
		if strings.HasPrefix(op.val, "-") || op.val == "discover" {
			continue
		}
		named = true
		for _, f := range []string{op.val, strings.ReplaceAll(op.val, ".", "/") + ext} {
			for _, t := range a.writtenTexts(u, nil, field{val: f, dyn: op.dyn}) {
				a.moreCode(u, lang, t)
			}
		}
		if !strings.HasSuffix(op.val, ext) {
			named = false // a directory or a package: found by name
		}
	}
	if named {
		return
	}
	for _, key := range a.writtenFiles(func(k string) bool { return testFile().MatchString(path.Base(k)) }) {
		for _, t := range a.keyTexts(u, key) {
			a.moreCode(u, lang, t)
		}
	}
}

// writtenFiles returns, in order, the files the line wrote whose key
// (path) keep accepts.
func (a *analyzer) writtenFiles(keep func(string) bool) []string {
	var out []string
	for key := range a.files {
		if keep(key) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// goGenerateLine matches a //go:generate directive: cmd/go's
// isGoGenerate takes a space or a tab after it.
var goGenerateLine = lazyRegexp(`^\s*//go:generate[ \t]\s*(.*?)\s*$`)

// goGenerate judges the //go:generate lines of the Go files the line
// wrote (go generate runs each as a command).
func (a *analyzer) goGenerate(u *unit) {
	for _, key := range a.writtenFiles(func(k string) bool { return strings.HasSuffix(k, ".go") }) {
		for _, t := range a.keyTexts(u, key) { // a key, not a path from u's directory (after a cd)
			for l := range strings.Lines(t) {
				if m := goGenerateLine().FindStringSubmatch(l); m != nil {
					a.shellString(u, field{val: m[1]})
				}
			}
		}
	}
}

// cargo runs the command of target.<triple>.runner (cargo run, cargo
// test) and the linker and rustc wrappers its configuration names,
// given in --config KEY=VALUE or in CARGO_TARGET_<TRIPLE>_RUNNER and the
// like (found by red-team round 52). A string value is split into words,
// an array's strings are the words; either is judged as the command it
// runs.

// cargoCommandKey matches the configuration keys whose value is a program
// cargo runs.
var cargoCommandKey = lazyRegexp(`^(target\.[^=]+\.(runner|linker)|build\.(rustc-wrapper|rustc-workspace-wrapper|rustc|rustdoc)|host\.linker)\s*$`)

// cargoCommandVar matches the variables that set them.
var cargoCommandVar = lazyRegexp(`^(CARGO_TARGET_[A-Z0-9_]+_(RUNNER|LINKER)|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|CARGO_BUILD_RUSTC_WRAPPER|CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER|CARGO_BUILD_RUSTC|CARGO_BUILD_RUSTDOC|RUSTC|RUSTDOC)$`)

// tomlStrings are the quoted strings of a TOML value.
var tomlStrings = lazyRegexp(`"((?:[^"\\]|\\.)*)"|'([^']*)'`)

// cargoConfig judges the commands u's --config values name.
func (a *analyzer) cargoConfig(u *unit) {
	if u.name != "cargo" {
		return
	}
	files := []field{{val: ".cargo/config.toml"}, {val: ".cargo/config"}} // written on the line: cargo reads them
	for _, f := range optValues(u, "", "--config") {
		k, v, ok := strings.Cut(f.val, "=")
		if !ok {
			files = append(files, f) // --config FILE
			continue
		}
		if !cargoCommandKey().MatchString(k) {
			continue
		}
		if f.dyn {
			u.script = &stream{traits: trUnknown}
			continue
		}
		a.cargoCommand(u, v)
	}
	for _, f := range files {
		for _, t := range a.writtenTexts(u, nil, f) {
			for _, m := range cargoFileCommand().FindAllStringSubmatch(t, -1) {
				a.cargoCommand(u, m[1])
			}
		}
	}
}

// cargoFileCommand matches, in a configuration file, a key whose value is
// a program cargo runs (under [target.…] or [build]; round 54).
var cargoFileCommand = lazyRegexp(`(?m)^\s*(?:runner|linker|rustc-wrapper|rustc-workspace-wrapper|rustc|rustdoc)\s*=\s*(.+)$`)

// cargoCommand judges a configured command: a TOML string or array.
func (a *analyzer) cargoCommand(u *unit, v string) {
	var words []field
	for _, m := range tomlStrings().FindAllStringSubmatch(v, -1) {
		words = append(words, field{val: m[1] + m[2], quoted: true})
	}
	if len(words) == 0 {
		a.shellString(u, field{val: strings.TrimSpace(v)})
		return
	}
	if !strings.HasPrefix(strings.TrimSpace(v), "[") {
		a.shellString(u, field{val: words[0].val}) // a string: its words
		return
	}
	a.argvOrShell(u, "cargo", words)
}

// npmPkgSet judges the scripts npm pkg set puts in package.json, which npm
// runs with sh (npm test, and install's lifecycle scripts): scripts.NAME=…,
// scripts[NAME]=…, and scripts={…} with --json (round 54).
func (a *analyzer) npmPkgSet(u *unit) {
	at := slices.IndexFunc(u.args, func(f field) bool { return f.val == "pkg" })
	if at < 0 || at+1 >= len(u.args) || u.args[at+1].val != "set" {
		return
	}
	asJSON := slices.ContainsFunc(u.args, func(f field) bool { return f.val == "--json" })
	for _, op := range u.args[at+2:] {
		k, v, ok := strings.Cut(op.val, "=")
		if !ok || strings.HasPrefix(op.val, "-") || !strings.HasPrefix(k, "scripts") {
			continue
		}
		if op.dyn {
			u.script = &stream{traits: trUnknown}
			continue
		}
		var scripts []string
		switch {
		case k == "scripts" && asJSON:
			var m map[string]any
			if json.Unmarshal([]byte(v), &m) != nil {
				u.script = &stream{traits: trUnknown}
				continue
			}
			for _, x := range m {
				if t, ok := x.(string); ok {
					scripts = append(scripts, t)
				}
			}
		case asJSON:
			var t string
			if json.Unmarshal([]byte(v), &t) != nil {
				t = v
			}
			scripts = append(scripts, t)
		default:
			scripts = append(scripts, v)
		}
		for _, t := range scripts {
			a.shellString(u, field{val: t})
		}
	}
}

// nodeEnvFiles judges the variables of the .env files node --env-file
// loads where the line wrote them: NODE_OPTIONS there loads code as on
// the line (round 56). One only known at run time may hold anything.
func (a *analyzer) nodeEnvFiles(u *unit) {
	for _, f := range optValues(u, "", "--env-file", "--env-file-if-exists") {
		if f.dyn {
			u.script = &stream{traits: trUnknown}
			continue
		}
		for _, t := range a.writtenTexts(u, nil, f) {
			if envFileRisky(t) {
				u.script = &stream{traits: trUnknown}
			}
		}
	}
}
