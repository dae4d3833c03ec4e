package classify

import (
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// JavaScript test runners load the test files they find or are named,
// and the modules their --require options (and configuration files) name,
// running their code (found by red-team round 62): mocha ./test/*.js, the
// files and directories named (--recursive), -r/--require and --file
// modules, .mocharc.json/.yml's require and spec; jest, vitest, ava and
// tap the test files of the project (__tests__/, *.test.js, *.spec.js,
// test/ …). The files the line wrote that a runner loads are judged as
// the node code they are.

// jsTestRunner is a runner's: its options naming modules it loads first,
// its options that take a value, and its configuration files (JSON or
// YAML) with the keys that name modules or test files.
type jsTestRunner struct {
	requires    []string // -r, --require, --file …
	valued      []string // other options taking the next word
	configs     []string // .mocharc.json …
	configKeys  []string // require, spec …
	defaultDirs []string // searched with no operand (mocha: test); nil: the project
	commands    []string // first operands that are a command, not a file (vitest run)
	patterns    bool     // operands are patterns on the test files' paths (jest)
}

// jsTestRunners are the runners by the names they run under.
var jsTestRunners = map[string]jsTestRunner{
	"mocha": {requires: []string{"-r", "--require", "--file"},
		valued:  []string{"--config", "--package", "--reporter", "-R", "--ui", "-u", "--timeout", "-t", "--slow", "-s", "--grep", "-g", "--fgrep", "-f", "--extension", "--ignore", "--exclude", "--reporter-option", "--reporter-options", "-O", "--jobs", "-j", "--retries", "--spec"},
		configs: []string{".mocharc.json", ".mocharc.jsonc", ".mocharc.yml", ".mocharc.yaml"}, configKeys: []string{"require", "spec", "file"},
		defaultDirs: []string{"test"}},
	"_mocha": {requires: []string{"-r", "--require", "--file"}, defaultDirs: []string{"test"}},
	"jest": {requires: []string{"--setupFiles", "--setupFilesAfterEnv", "--globalSetup", "--globalTeardown", "--testEnvironment"},
		valued:   []string{"-c", "--config", "-t", "--testNamePattern", "--testPathPattern", "--rootDir", "--roots", "-w", "--maxWorkers", "--reporters", "--coverageDirectory"},
		patterns: true},
	"vitest": {requires: []string{"--setupFiles", "--globalSetup", "--environment"},
		valued:   []string{"-c", "--config", "-t", "--testNamePattern", "--root", "-r", "--dir", "--reporter", "--pool"},
		commands: []string{"run", "watch", "dev", "bench", "related", "list"}, patterns: true},
	"ava": {requires: []string{"-r", "--require"}, valued: []string{"--config", "-m", "--match", "-c", "--concurrency", "-T", "--timeout"}},
	"tap": {requires: []string{"--before", "--after", "-r", "--node-arg"}, valued: []string{"-R", "--reporter", "-t", "--timeout", "-j", "--jobs"}},
}

// jsTestName matches the names the runners take as test files by
// default.
var jsTestName = lazyRegexp(`(^|/)(__tests__|tests?|spec)/|[._-](test|spec)\.[cm]?[jt]sx?$|^test\.[cm]?js$`)

// jsTestFiles judges the written test files and required modules the
// JavaScript test runner u loads.
func (a *analyzer) jsTestFiles(u *unit) {
	r, ok := jsTestRunners[u.name]
	if !ok || len(a.files) == 0 {
		return
	}
	var mods, ops []field
	for i := 0; i < len(u.args); i++ {
		v := u.args[i]
		name, val, eq := strings.Cut(v.val, "=")
		switch {
		case slices.Contains(r.requires, name):
			if !eq && i+1 < len(u.args) {
				i++
				mods = append(mods, u.args[i])
			} else if eq {
				v.val = val
				mods = append(mods, v)
			}
		case slices.Contains(r.valued, name) && !eq:
			i++
		case strings.HasPrefix(v.val, "-"):
		case len(ops) == 0 && slices.Contains(r.commands, v.val):
		default:
			ops = append(ops, v)
		}
	}
	if r.patterns {
		ops = nil // the project's test files whose paths match
	}
	for _, c := range r.configs {
		for _, t := range a.writtenTexts(u, nil, field{val: c}) {
			mods = append(mods, jsConfigValues(t, r.configKeys)...)
		}
	}
	for _, m := range mods {
		for _, ext := range []string{"", ".js", ".cjs", ".mjs", ".ts"} {
			g := m
			g.val += ext
			a.nodeFile(u, nil, g)
		}
	}
	a.jsTestTree(u, r, ops)
}

// jsTestTree judges the written files below the operands (files,
// directories, globs: the part before the first wildcard), or, with none,
// below the runner's default directories or the project's test files.
func (a *analyzer) jsTestTree(u *unit, r jsTestRunner, ops []field) {
	keep := func(string) bool { return true }
	if len(ops) == 0 && r.defaultDirs == nil {
		keep = func(k string) bool { return jsTestName().MatchString(k) }
		ops = []field{{val: "."}}
	} else if len(ops) == 0 {
		for _, d := range r.defaultDirs {
			ops = append(ops, field{val: d})
		}
	}
	for _, op := range ops {
		if op.dyn {
			continue
		}
		if i := strings.IndexAny(op.val, "*?[{"); i >= 0 {
			op.val = path.Dir(op.val[:i] + "x")
		}
		dk := fileKey(u.cwd, u.links, op)
		for _, key := range a.writtenFiles(func(k string) bool {
			ext := path.Ext(k)
			return (k == dk || dk == "." || strings.HasPrefix(k, dk+"/")) && !strings.Contains(k, "node_modules/") &&
				(slices.Contains(jsExts, ext) || ext == ".jsx" || ext == ".tsx") && keep(k)
		}) {
			for _, t := range a.keyTexts(u, key) {
				a.moreCode(u, "node", t)
				a.nodeImportsOf(u, path.Dir(keyPath(u, key)), field{val: t}, map[string]bool{})
			}
		}
	}
}

// jsConfigValues returns the strings a JSON or YAML configuration gives
// the keys (a string or a list of them).
func jsConfigValues(text string, keys []string) []field {
	var m map[string]any
	if yaml.Unmarshal([]byte(text), &m) != nil {
		return nil
	}
	var out []field
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			out = append(out, field{val: v})
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, field{val: s})
				}
			}
		}
	}
	return out
}
