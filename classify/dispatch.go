package classify

import (
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// run analyses one unit: it follows whatever the unit runs (wrapper
// payloads, shell strings, interpreter code), then judges the unit itself.
// It returns what the unit writes to standard output.
func (a *analyzer) run(u *unit) stream {
	if a.halt {
		return stream{traits: trUnknown}
	}
	if !a.charge(1) {
		return stream{traits: trUnknown}
	}
	if len(a.hashed) > 0 {
		a.hashedProgram(u)
	}
	if u.name == "shopt" && !u.dynName {
		// Also run by builtin, command or any other wrapper.
		a.lastpipe = a.lastpipe || slices.ContainsFunc(u.args, lastpipeWord)
		a.xpgEcho = a.xpgEcho || slices.ContainsFunc(u.args, xpgEchoWord)
		a.dotglob = a.dotglob || shoptSetsDotglob(u.args)
		a.nocaseglob = a.nocaseglob || shoptSets(u.args, "nocaseglob")
		a.cdableVars = a.cdableVars || shoptSets(u.args, "cdable_vars")
		a.nullglob = a.nullglob || shoptSets(u.args, "nullglob")
	}
	if u.name == "set" && !u.dynName {
		a.setPosix(u.args)
		a.keyword = a.keyword || setsKeyword(u.args)
	}
	u.afterListing = a.listed
	out, judge := a.dispatch(u)
	if listsStores(out) {
		a.listed = true
	}
	if k := readsCodeFromStdin(u); k != nil && u.script == nil {
		a.stdinCode(u, k)
	}
	if u.kind == kCall && !u.dynName && (u.name == "git" || u.name == "man") {
		a.pagerRuns(u, out)
	}
	if judge || (u.script != nil && u.script.execRule() != "") {
		a.emit(u)
	}
	return out
}

// lastpipeWord reports whether a shopt word may name lastpipe.
func lastpipeWord(f field) bool { return f.dyn || f.val == "lastpipe" }

// setPosix follows set -o posix and set +o posix; a run-time word may be
// either.
func (a *analyzer) setPosix(args []field) {
	for i, f := range args {
		switch {
		case f.dyn && a.posix == posixOff:
			a.posix = posixMaybe
		case f.val == "posix" && i > 0 && args[i-1].val == "-o":
			a.posix = posixOn
		case f.val == "posix" && i > 0 && args[i-1].val == "+o":
			a.posix = posixOff
		}
	}
}

// setsKeyword reports whether set's arguments may turn keyword on (set
// -k, set -o keyword; a run-time word may): every NAME=VALUE word of a
// later command is then an assignment to its environment, wherever it
// stands (set -k; git status GIT_CONFIG_COUNT=1 …). Found by red-team
// round 49.
func setsKeyword(args []field) bool {
	for i, f := range args {
		switch {
		case f.dyn:
			return true
		case len(f.val) > 1 && f.val[0] == '-' && f.val[1] != '-' && f.val != "-o" && strings.ContainsRune(f.val[1:], 'k'):
			return true
		case f.val == "keyword" && i > 0 && args[i-1].val == "-o":
			return true
		}
	}
	return false
}

// xpgEchoWord reports whether a shopt word may name xpg_echo.
func xpgEchoWord(f field) bool { return f.dyn || f.val == "xpg_echo" }

// handler follows what a program runs; judge reports whether the program's
// own unit should be judged too (false for transparent wrappers).
type handler func(a *analyzer, u *unit) (out stream, judge bool)

// handlers maps program names to special handling; everything else is
// judged as is, and its output computed by produce. It is built on first use
// (see set), by buildHandlers: the handlers refer back to the table.
var (
	handlersOnce sync.Once
	handlers     map[string]handler
)

func handlerFor(name string) (handler, bool) {
	handlersOnce.Do(buildHandlers)
	h, ok := handlers[name]
	return h, ok
}

func buildHandlers() {
	handlers = map[string]handler{
		"eval":      (*analyzer).runEval,
		"source":    (*analyzer).runSource,
		".":         (*analyzer).runSource,
		"trap":      (*analyzer).runTrap,
		"alias":     (*analyzer).runAlias,
		"find":      (*analyzer).runFind,
		"busybox":   (*analyzer).runBusybox,
		"toybox":    (*analyzer).runBusybox,
		"su":        (*analyzer).runSu,
		"runuser":   (*analyzer).runSu,
		"ssh":       (*analyzer).runSSH,
		"scp":       (*analyzer).runSCP,
		"sftp":      (*analyzer).runSCP,
		"autossh":   (*analyzer).runSSH,
		"git":       (*analyzer).runGit,
		"cmd":       (*analyzer).runCmdExe,
		"sed":       (*analyzer).runSed,
		"gsed":      (*analyzer).runSed,
		"crontab":   (*analyzer).runScheduler,
		"at":        (*analyzer).runScheduler,
		"batch":     (*analyzer).runScheduler,
		"set":       (*analyzer).runSet,
		"shift":     (*analyzer).runShift,
		"hash":      (*analyzer).runHash,
		"enable":    (*analyzer).runEnable,
		"unalias":   (*analyzer).runUnalias,
		"mapfile":   (*analyzer).runMapfile,
		"readarray": (*analyzer).runMapfile,
		"tmux":      (*analyzer).runTmux,
		"hyperfine": (*analyzer).runHyperfine,
		"compgen":   (*analyzer).runCompgen,
		"sqlite3":   (*analyzer).runSqlite,
		"sqlite":    (*analyzer).runSqlite,
		"pdb":       (*analyzer).runPdb,
		"pdb3":      (*analyzer).runPdb,
	}
	for _, n := range shellNames.words {
		handlers[n] = (*analyzer).runShell
	}
	for n := range interpreters() {
		handlers[n] = (*analyzer).runInterpreter
	}
	for n := range templateTools {
		handlers[n] = (*analyzer).runTemplate // m4, erb (templatecode.go)
	}
	for _, n := range []string{"powershell", "pwsh"} {
		handlers[n] = (*analyzer).runPowerShell
	}
	direnvHandlers(handlers)                  // source_env, source_up, dotenv (direnv.go)
	handlers["cmake"] = (*analyzer).runCMakeE // cmake -E APPLET (cmaketool.go)
}

func (a *analyzer) dispatch(u *unit) (stream, bool) {
	if u.kind != kCall || u.name == "" && !u.dynName {
		return stream{}, true
	}
	if r := u.nameSrc.execRule(); r != "" && r != RuleEvalExec {
		// The program word itself came from the network, a decoder or
		// the history: $(curl …), $(echo … | base64 -d).
		s := u.nameSrc
		u.script = &s
	}
	if u.dynName {
		if u.nameGlob {
			a.runGlobNames(u)
		}
		return stream{traits: trUnknown}, true
	}
	a.optionEnvArgs(u) // TAR_OPTIONS, ZIPOPT, … as the words they stand for
	if _, ok := execOptions()[u.name]; ok {
		a.runExecOptions(u)
	}
	if lessNames.has(u.name) {
		a.runLess(u)
	} else {
		a.pagerLess(u)
	}
	if u.name == "man" {
		a.manRoff(u)
	}
	if u.name == "dc" {
		a.dcShell(u)
	}
	loadsPlugin(u)
	a.writtenCode(u)     // echo … > Makefile; make
	a.luaStartup(u)      // LUA_INIT, lua -l (luacode.go)
	a.toolScriptFiles(u) // … > x.gdb; gdb -x x.gdb
	a.runnerCode(u)      // … > test_x.py; python3 -m unittest
	a.cargoConfig(u)
	a.cargoBuildCode(u)       // build.rs; cargo check (cargobuild.go)
	a.jvmOptions(u)           // java '-XX:OnError=CMD', .mvn/jvm.config (jvm.go)
	a.historyWrites(u)        // history -w FILE (round 58)
	a.screenCommands(u)       // screen -X stuff …, screen -c x.rc
	a.rubyWrittenCode(u)      // ruby -r./x, rake's Rakefile, bundler's Gemfile
	a.rubyRuns(u)             // ruby -run -e rm, ruby -i
	a.perlModuleRuns(u)       // perl -MExtUtils::Command -e rm_rf (perlcommand.go)
	a.nodeCodeImports(u)      // node -e 'require("./x")'
	a.workspaceScripts(u)     // npm -w p, pnpm -r, --filter
	a.yarnrcPath(u)           // .yarnrc's yarn-path
	a.packageManagerConfig(u) // .pnpmfile.cjs, bunfig.toml preload, .npmrc
	if spec, ok := wrappers()[u.name]; ok {
		return a.runWrapper(u, u.name, spec, u.args)
	}
	if sub, i := u.sub(); i >= 0 {
		if spec, ok := subWrappers()[u.name+" "+sub]; ok {
			out, judge := a.runWrapper(u, u.name, spec, u.args[i+1:])
			return out, judge
		}
	}
	if h, ok := handlerFor(u.name); ok {
		return h(a, u)
	}
	if isInterpreterName(u.name) {
		return a.runInterpreter(u)
	}
	if strings.Contains(u.prog, "/") {
		a.writtenScript(u, u.prog, a.script)
	}
	if u.name == "go" && u.arg(0) == "run" {
		// go run FILE.go written earlier on the line.
		for _, f := range u.args[1:] {
			if text, ok := a.files[fileKey(u.cwd, u.links, f)]; ok {
				for _, t := range fileTexts(text) {
					a.codeText(u, "go", t)
				}
			}
		}
	}
	return a.produce(u), true
}

// runEval parses the joined arguments of eval as a script.
func (a *analyzer) runEval(u *unit) (stream, bool) {
	s := joinStream(u.args)
	u.script = &s
	defer a.tempAssigns(u.env)()
	return a.sameShell(s.text, &u.in), true
}

// tempAssigns gives the prefix assignments of eval or source to the code
// they run (HOME=/ eval cd goes to /) and returns what puts the variables
// back. In dash and in bash's posix mode they stay set after it, which
// keepSpecialAssigns then does.
func (a *analyzer) tempAssigns(env []envVar) (restore func()) {
	if len(env) == 0 {
		return func() {}
	}
	type saved struct {
		v   varVal
		had bool
	}
	prev := map[string]saved{}
	for _, e := range env {
		n := a.refName(e.name)
		if _, done := prev[n]; !done {
			v, had := a.vars[n]
			prev[n] = saved{v, had}
		}
		a.assign(e)
	}
	return func() {
		for n, s := range prev {
			if s.had {
				a.setVarRaw(n, s.v)
			} else {
				delete(a.vars, n)
			}
		}
	}
}

// runSource handles source/. FILE: a process substitution or standard input
// is code whose origin matters; a named file is run in the sandbox. The
// code runs in the shell itself.
func (a *analyzer) runSource(u *unit) (stream, bool) {
	ops := u.operands()
	if len(ops) == 0 {
		return stream{traits: trUnknown}, true
	}
	defer a.tempAssigns(u.env)()
	a.scriptFile(u, ops[0], a.sameShell)
	return stream{traits: trUnknown}, true
}

// scriptFile records the code a shell or interpreter runs from a file
// operand; run walks shell code (a.script in a child shell, a.sameShell).
func (a *analyzer) scriptFile(u *unit, f field, run func(string, *stream) stream) {
	switch {
	case f.val == "/dev/stdin" || f.val == "-" || f.val == "/proc/self/fd/0" || f.val == "/dev/fd/0":
		s := u.in
		if !u.piped {
			s = stream{}
		}
		u.script = &s
		runTexts(s, run)
	case f.src.traits&trProcSubst != 0 || f.dyn:
		s := f.src
		if f.dyn && s.traits&^trProcSubst == 0 && !s.textKnown {
			s.traits |= trUnknown
		}
		u.script = &s
		if s.textKnown {
			run(s.text, nil)
		}
	case strings.HasPrefix(f.val, "http://") || strings.HasPrefix(f.val, "https://"):
		u.script = &stream{traits: trDownload}
	default:
		if s, ok := a.fdScript(u, f.val); ok {
			u.script = &s // bash /dev/fd/3 3<s.sh
			if s.textKnown {
				run(s.text, nil)
			}
			return
		}
		a.writtenScript(u, f.val, run)
	}
}

// fdScript returns what a script named /dev/fd/N or /proc/self/fd/N reads:
// the descriptor the command itself opened (3<s.sh, 3<<<text) or one an
// earlier exec opened for reading.
func (a *analyzer) fdScript(u *unit, p string) (stream, bool) {
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	if !ok {
		n, ok = strings.CutPrefix(p, "/proc/self/fd/")
	}
	if !ok || n == "" || !isFD(n) {
		return stream{}, false
	}
	if s, ok := u.fdIn[n]; ok {
		return s, true
	}
	s, ok := a.inFDs[n]
	return s, ok
}

// downloaded marks, in analyzer.files, a file fetched from the network.
const downloaded = "\x00downloaded"

// writtenScript classifies a script file written (or downloaded) earlier
// on the same line and now run by u (as shell code: by run).
func (a *analyzer) writtenScript(u *unit, p string, run func(string, *stream) stream) bool {
	text, ok := a.files[fileKey(u.cwd, u.links, field{val: p})]
	if !ok {
		return a.matchedScripts(u, p, run)
	}
	texts := fileTexts(text)
	if len(texts) == 1 {
		a.writtenText(u, p, text, run)
		return true
	}
	// Each text the file may hold, from the same state; afterwards what
	// they change is joined (source runs them in the shell itself).
	_, ends := a.paths(len(texts), func(i int) { a.writtenText(u, p, texts[i], run) })
	a.joinAll(ends)
	return true
}

// matchedScripts runs, for a script named by a glob (sh ./*) or by
// find's {} (find . -exec sh {} \;), every file written on the line that
// the name may stand for.
func (a *analyzer) matchedScripts(u *unit, p string, run func(string, *stream) stream) bool {
	glob := strings.ContainsAny(p, "*?[")
	if !glob && len(u.findRoots) == 0 {
		return false
	}
	pattern := fileKey(u.cwd, u.links, field{val: p})
	var roots []string
	for _, r := range u.findRoots {
		roots = append(roots, fileKey(u.cwd, u.links, r))
	}
	found := false
	for _, key := range slices.Sorted(maps.Keys(a.files)) {
		m := glob && pathGlobMatch(pattern, key)
		for _, r := range roots {
			m = m || key == r || r == "." && !strings.HasPrefix(key, "/") && !strings.HasPrefix(key, "~") || strings.HasPrefix(key, strings.TrimSuffix(r, "/")+"/")
		}
		if m && a.writtenScript(u, key, run) {
			found = true
		}
	}
	return found
}

// pathGlobMatch reports whether the path name matches the glob pattern,
// one component for each.
func pathGlobMatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// writtenText classifies text, written to the script p earlier on the
// line, run by u.
func (a *analyzer) writtenText(u *unit, p, text string, run func(string, *stream) stream) {
	if text == downloaded {
		u.script = &stream{traits: trDownload}
		return
	}
	if line, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(line, "#!") {
		// #!/usr/bin/env python3, #!/usr/bin/perl -w …
		words := strings.Fields(strings.TrimPrefix(line, "#!"))
		if len(words) > 1 && normName(words[0]) == "env" {
			words = words[1:]
		}
		if len(words) > 0 {
			if spec, ok := interpreterFor(normName(words[0])); ok {
				facts, shells, argvs := scanCode(spec.lang, text, 0)
				u := &unit{kind: kCall, code: &facts, prog: p, name: normName(p)}
				for _, s := range shells {
					a.script(s, nil)
				}
				for _, av := range argvs {
					a.runArgv(u.name, av)
				}
				a.emit(u)
				return
			}
		}
	}
	run(text, nil)
}

// runTrap classifies the command string of trap, which the shell runs
// later, if ever.
func (a *analyzer) runTrap(u *unit) (stream, bool) {
	ops := u.operands()
	if len(ops) >= 2 && ops[0].val != "-" && ops[0].val != "" {
		a.hookString(u, ops[0])
	}
	return stream{}, true
}

// runAlias classifies the value of every NAME=VALUE alias definition and
// records it (see aliasUse). A name only known at run time may be any
// command's: the definition is eval-exec.
func (a *analyzer) runAlias(u *unit) (stream, bool) {
	dynName := false
	for _, f := range u.args {
		if n, v, ok := strings.Cut(f.val, "="); ok {
			g := f
			g.val = v
			a.shellString(u, g)
			a.setAlias(n, v)
			dynName = dynName || f.dyn && strings.ContainsAny(n, "$`")
		}
	}
	if dynName {
		u.script = &stream{traits: trUnknown}
	}
	return stream{}, true
}

// runBusybox treats `busybox APPLET ARGS` as APPLET ARGS.
func (a *analyzer) runBusybox(u *unit) (stream, bool) {
	if len(u.args) == 0 || strings.HasPrefix(u.args[0].val, "-") {
		return stream{}, true
	}
	in := u.inner("busybox", u.args)
	out := a.run(in)
	a.rememberInner(in, out) // busybox cp x ~/.bashrc
	return out, false
}

// runSu handles su/runuser: the -c string runs as another user.
func (a *analyzer) runSu(u *unit) (stream, bool) {
	// su and runuser take options after the user and run the last -c:
	// every -c is judged (su -c true root -c 'rm -rf ~').
	ran := false
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		name, val, has := strings.Cut(v, "=")
		switch {
		case v == "-c" || v == "--command" || v == "--session-command":
			if i+1 < len(u.args) {
				i++
				a.shellString(u, u.args[i])
			}
			ran = true
		case has && (name == "--command" || name == "--session-command"):
			f := u.args[i]
			f.val = val
			a.shellString(u, f)
			ran = true
		case ran:
		case u.name == "runuser" && v == "-u" && i+2 < len(u.args) && u.args[i+2].val != "-c":
			rest := u.args[i+2:]
			if len(rest) > 0 && rest[0].val == "--" {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				a.run(u.inner(u.name, rest))
			}
			return stream{traits: trUnknown}, true
		}
	}
	if ran {
		return stream{traits: trUnknown}, true
	}
	// No -c: an interactive shell as the other user reads standard input.
	sh := u.inner(u.name, []field{{val: "sh"}})
	a.run(sh)
	return stream{traits: trUnknown}, true
}

// runSSH classifies ProxyCommand/LocalCommand (which run locally) and the
// remote command.
func (a *analyzer) runSSH(u *unit) (stream, bool) {
	ops := a.sshOptions(u, sshValueLetters)
	if len(ops) > 1 {
		j := joinField(ops[1:])
		saved := u.script
		a.shellString(u, j)
		u.script = saved
	}
	return stream{traits: trDownload | trUnknown}, true
}

// sshValueLetters are ssh's option letters that take a value.
const sshValueLetters = "BbcDEeFIiJLlmOopQRSWw"

// runSCP classifies the local commands of scp's and sftp's -o options
// (ProxyCommand), which they hand to ssh.
func (a *analyzer) runSCP(u *unit) (stream, bool) {
	withValue := "cDFiJloPSX"
	if u.name == "sftp" {
		withValue = "BbcDFiJloPRSsX"
	}
	a.sshOptions(u, withValue)
	return a.produce(u), true
}

// sshOptions judges the commands of ssh's -o options (ProxyCommand,
// LocalCommand, KnownHostsCommand; withValue are the letters of options
// that take a value) and returns the operands.
func (a *analyzer) sshOptions(u *unit, withValue string) []field {
	var ops []field
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		if len(ops) > 0 || len(v) < 2 || v[0] != '-' {
			ops = append(ops, u.args[i])
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(withValue, v[j]) < 0 {
				continue
			}
			val := v[j+1:]
			f := u.args[i]
			if val == "" && i+1 < len(u.args) {
				i++
				f = u.args[i]
				val = f.val
			}
			if v[j] == 'o' {
				k, cmd, ok := strings.Cut(val, "=")
				if !ok {
					k, cmd, _ = strings.Cut(val, " ")
				}
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "proxycommand", "localcommand", "knownhostscommand":
					f.val = cmd
					a.shellString(u, f)
				}
			}
			break
		}
	}
	return ops
}

// runCmdExe handles `cmd /c STRING`.
func (a *analyzer) runCmdExe(u *unit) (stream, bool) {
	for i, f := range u.args {
		if l := strings.ToLower(f.val); l == "/c" || l == "/k" || l == "/r" {
			if i+1 < len(u.args) {
				a.shellString(u, joinField(u.args[i+1:]))
			}
			break
		}
	}
	return stream{traits: trUnknown}, true
}

// runFind runs the commands of -exec/-execdir/-ok/-okdir with {} standing
// for the starting points.
func (a *analyzer) runFind(u *unit) (stream, bool) {
	roots, execs, at := findParse(u.args)
	roots = expandFindRoots(u, roots)
	filtered := findFilteredAt(u.args, at)
	for k, ex := range execs {
		if len(ex) == 0 {
			continue
		}
		if !a.checkFindPaste(roots, ex) {
			break
		}
		in := u.inner("find", ex)
		in.findRoots = roots
		in.findFiltered = filtered[k]
		in.in = stream{}
		a.run(in)
	}
	var tree []field // the names found: find ~ | xargs cat
	for _, r := range roots {
		tree = append(tree, resolveIn(u.cwd, r))
	}
	out := stream{traits: trUnknown, tree: &tree}
	if p, ok := printedText(u); ok { // find … -printf 'TEXT'
		out.text, out.textKnown, out.lines = p.text, p.textKnown, p.lines
	}
	return out, true
}

// findParse splits find's arguments into starting points and the command
// words of every -exec-like action; at holds the index in args of each
// action's -exec word.
func findParse(args []field) (roots []field, execs [][]field, at []int) {
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || strings.HasPrefix(args[i].val, "-D") || strings.HasPrefix(args[i].val, "-O")) {
		if args[i].val == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == "," {
			break
		}
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []field{{val: "."}}
	}
	for ; i < len(args); i++ {
		if findExecActions.has(args[i].val) {
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			execs = append(execs, args[i+1:j])
			at = append(at, i)
			i = j
		}
	}
	return roots, execs, at
}

// runSet records `set -- ARGS` (or set ARGS) as the positional parameters.
func (a *analyzer) runSet(u *unit) (stream, bool) {
	for i, f := range u.args {
		if f.val == "--" || !strings.HasPrefix(f.val, "-") && !strings.HasPrefix(f.val, "+") {
			rest := u.args[i:]
			if f.val == "--" {
				rest = u.args[i+1:]
			}
			a.setVar("@", positionalParams(rest))
			break
		}
		if f.val == "-o" || f.val == "+o" {
			break
		}
	}
	return stream{}, true
}

// runShift drops the first N positional parameters (shift [N]) the line
// set; a count only known at run time leaves them run-time values. A count
// past $# fails and changes nothing, as in bash.
func (a *analyzer) runShift(u *unit) (stream, bool) {
	v, ok := a.vars["@"]
	if !ok {
		return stream{}, true // not set on the line: already run-time values
	}
	n, lit := 1, true
	if ops := u.operands(); len(ops) > 0 {
		n, lit = atoiSmall(ops[0].val)
		lit = lit && !ops[0].dyn
	}
	switch {
	case !lit || !v.known || n < 0:
		a.setVar("@", varVal{})
	case n <= len(v.arr):
		a.setVar("@", varVal{known: true, arr: v.arr[n:]})
	}
	return stream{}, true
}

// runGlobNames classifies a program word with a glob in its name as every
// known program the glob matches (/usr/bin/r? -rf / is rm -rf /); the most
// severe one decides. The word itself stays a program only known at run
// time (eval-exec), whether or not anything matched. A glob in a relative
// directory (bin/n*, ./s*) names the project's own files, not the system's
// programs: it stays eval-exec only.
func (a *analyzer) runGlobNames(u *unit) {
	dir := u.prog[:strings.LastIndexAny(u.prog, `/\`)+1]
	if dir != "" && !strings.HasPrefix(dir, "/") {
		return
	}
	for _, n := range globPrograms(u.name) {
		c := *u
		c.nameGlob, c.dynName = false, false
		c.name, c.prog = n, dir+n
		c.args, c.env, c.wrappers = slices.Clip(u.args), slices.Clip(u.env), slices.Clip(u.wrappers)
		a.run(&c)
	}
}
