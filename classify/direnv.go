package classify

import (
	"path"
	"strings"
)

// direnv evaluates a directory's .envrc with bash and its standard
// library (found by red-team round 60): direnv allow lets the user's shell
// hook run it at the next prompt, direnv exec DIR runs it before the
// command; and the library's functions load more files: source_env and
// source_env_if_exists source a file (a directory's .envrc), source_up its
// name in a parent directory, dotenv a .env file's variables, source_url a
// script it downloads. The .envrc the line wrote is judged when direnv
// runs, with what the line wrote by then, and the library's functions as
// the loads they are.

// direnvLoads are direnv's subcommands that run (or allow) a directory's
// .envrc, and the position of the directory among their operands.
var direnvLoads = map[string]int{"allow": 1, "permit": 1, "grant": 1, "exec": 1, "reload": -1, "export": -1}

// direnvCode judges the .envrc the line wrote that direnv runs.
func (a *analyzer) direnvCode(u *unit) {
	if u.name != "direnv" {
		return
	}
	ops := u.operands()
	at, ok := direnvLoads[u.arg(0)]
	if len(ops) == 0 || !ok {
		return
	}
	dir := field{val: "."}
	if at > 0 && at < len(ops) {
		dir = ops[at]
	}
	rc := dir
	if path.Base(dir.val) != ".envrc" {
		rc.val = path.Join(dir.val, ".envrc")
	}
	a.direnvSource(u, rc)
}

// safeDir matches a directory name that is one shell word as it stands.
var safeDir = lazyRegexp(`^[A-Za-z0-9_./~+-]+$`)

// direnvSource judges the text the line wrote to file as direnv runs it:
// in the file's directory (source_env and direnv itself change to it).
func (a *analyzer) direnvSource(u *unit, file field) {
	dir := path.Dir(file.val)
	if !safeDir().MatchString(dir) {
		dir = shellQuote(dir)
	}
	for _, t := range a.writtenTexts(u, nil, file) {
		if dir != "." {
			t = "cd " + dir + " || exit\n" + t
		}
		a.script(t, nil)
	}
}

// direnvHandlers adds the functions of direnv's standard library to the
// handlers: outside an .envrc they are programs no one has.
func direnvHandlers(h map[string]handler) {
	for _, n := range []string{"source_env", "source_env_if_exists"} {
		h[n] = (*analyzer).runSourceEnv
	}
	for _, n := range []string{"source_up", "source_up_if_exists"} {
		h[n] = (*analyzer).runSourceUp
	}
	for _, n := range []string{"dotenv", "dotenv_if_exists"} {
		h[n] = (*analyzer).runDotenv
	}
	h["source_url"] = (*analyzer).runSourceURL
}

// runSourceEnv follows source_env FILE_OR_DIR: the file, or the
// directory's .envrc, sourced.
func (a *analyzer) runSourceEnv(u *unit) (stream, bool) {
	ops := u.operands()
	if len(ops) == 0 {
		return stream{traits: trUnknown}, true
	}
	f := ops[0]
	if f.dyn || f.src.traits != 0 {
		a.scriptFile(u, f, a.sameShell) // a run-time name, <(…)
		return stream{traits: trUnknown}, true
	}
	a.direnvSource(u, f)
	f.val = path.Join(f.val, ".envrc")
	a.direnvSource(u, f)
	return stream{traits: trUnknown}, true
}

// direnvUpLevels bounds the parent directories source_up is followed to.
const direnvUpLevels = 8

// runSourceUp follows source_up [FILE]: FILE (.envrc) of the nearest
// parent directory holding one, sourced.
func (a *analyzer) runSourceUp(u *unit) (stream, bool) {
	name := field{val: ".envrc"}
	if ops := u.operands(); len(ops) > 0 {
		name = ops[0]
	}
	if name.dyn {
		u.script = &stream{traits: trUnknown}
		return stream{traits: trUnknown}, true
	}
	up := ".."
	for range direnvUpLevels {
		a.direnvSource(u, field{val: path.Join(up, name.val)})
		up += "/.."
	}
	return stream{traits: trUnknown}, true
}

// runDotenv judges dotenv [FILE] (.env): the variables it sets are the
// environment of what the .envrc's shell runs next, and the user's.
func (a *analyzer) runDotenv(u *unit) (stream, bool) {
	f := field{val: ".env"}
	if ops := u.operands(); len(ops) > 0 {
		f = ops[0]
	}
	if f.dyn {
		u.script = &stream{traits: trUnknown}
	}
	for _, t := range a.writtenTexts(u, nil, f) {
		if envFileRisky(t) {
			u.script = &stream{traits: trUnknown}
		}
	}
	return stream{traits: trUnknown}, true
}

// envFileRisky reports whether a .env text sets a variable that makes
// programs run code (riskyEnv).
func envFileRisky(text string) bool {
	for l := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "export ")), "=")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if riskyEnv(envVar{name: strings.TrimSpace(k), val: field{val: v}}) {
			return true
		}
	}
	return false
}

// runSourceURL: source_url URL HASH sources a downloaded script.
func (a *analyzer) runSourceURL(u *unit) (stream, bool) {
	u.script = &stream{traits: trDownload}
	return stream{traits: trUnknown}, true
}
