package classify

import (
	"path"
	"strings"
)

// The Rust code cargo runs from the project (found by red-team round 60):
// every command that compiles a package first compiles and runs its build
// script (build.rs at the package root, or the file Cargo.toml's
// package.build names) and the procedural macros it uses; cargo run, test
// and bench then run what they built. Where the line wrote such code it is
// judged as the Rust it is (rustcode.go).

// cargoNoBuild are cargo's subcommands that compile nothing.
var cargoNoBuild = newSet("", "new", "init", "help", "search", "login", "logout", "owner", "yank", "metadata", "tree",
	"update", "fetch", "generate-lockfile", "locate-project", "pkgid", "vendor", "clean", "add", "remove", "rm", "fmt",
	"verify-project", "config", "info", "report", "version", "uninstall", "read-manifest")

// cargoRunSubs run what they compile (or a program built from written
// code: install --path).
var cargoRunSubs = newSet("run", "r", "test", "t", "bench", "miri", "nextest", "llvm-cov", "tarpaulin", "install")

// cargoBuildKey and cargoProcMacro read a written Cargo.toml: its build
// script, whether the package is a procedural macro.
var (
	cargoBuildKey  = lazyRegexp(`(?m)^\s*build\s*=\s*["']([^"']+)["']`)
	cargoProcMacro = lazyRegexp(`(?m)^\s*proc[-_]macro\s*=\s*true`)
)

// rustScriptRunners compile and run a Rust file they are given, as cargo
// does its -Zscript FILE.rs.
var rustScriptRunners = newSet("rust-script", "cargo-script", "scriptisto")

// cargoBuildCode judges the written Rust code u's cargo command runs.
func (a *analyzer) cargoBuildCode(u *unit) {
	if rustScriptRunners.has(u.name) || u.name == "cargo" {
		for _, op := range u.operands() {
			if strings.HasSuffix(op.val, ".rs") {
				for _, t := range a.writtenTexts(u, nil, op) {
					a.moreCode(u, "rust", t)
				}
			}
		}
	}
	if u.name != "cargo" {
		return
	}
	sub := cargoSub(u)
	if strings.HasSuffix(sub, ".rs") {
		sub = "run" // cargo -Zscript x.rs
	}
	if cargoNoBuild.has(sub) || strings.HasPrefix(sub, "-") {
		return
	}
	all := cargoRunSubs.has(sub)
	scripts := map[string]bool{}
	for _, key := range a.writtenFiles(func(k string) bool { return path.Base(k) == "Cargo.toml" }) {
		for _, t := range a.keyTexts(u, key) {
			if m := cargoBuildKey().FindStringSubmatch(t); m != nil {
				scripts[path.Join(path.Dir(key), m[1])] = true
			}
			all = all || cargoProcMacro().MatchString(t)
		}
	}
	for _, key := range a.writtenFiles(func(k string) bool { return strings.HasSuffix(k, ".rs") }) {
		if !all && !scripts[key] && path.Base(key) != "build.rs" {
			continue
		}
		for _, t := range a.keyTexts(u, key) {
			a.codeText(u, "rust", t)
		}
	}
}

// cargoSub returns cargo's subcommand, past a +toolchain and the options
// before it that take a value.
func cargoSub(u *unit) string {
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case strings.HasPrefix(v, "+"):
		case v == "--config" || v == "-Z" || v == "-C" || v == "--color" || v == "--manifest-path":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			return v
		}
	}
	return ""
}
