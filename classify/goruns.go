package classify

import (
	"path"
	"strings"
)

// go run and go test build a package, named by its directory (go run .,
// go run ./cmd/x, go test ./...), by an import path or by its files, and
// run it: go run the package's main, go test its test binary, whose
// TestMain, tests and init functions are the code of its _test.go files
// too (found by red-team round 61). The Go files the line wrote in the
// packages named are judged as the code they run.

// goValueFlags are the flags of go run and go test (build flags, test
// flags) that take a value as the next word when not given as -flag=v.
var goValueFlags = newSet("C", "p", "asmflags", "buildmode", "compiler", "covermode", "coverpkg",
	"gccgoflags", "gcflags", "installsuffix", "ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir",
	"tags", "toolexec", "o", "exec", "bench", "benchtime", "blockprofile", "blockprofilerate", "count",
	"coverprofile", "cpu", "cpuprofile", "fuzz", "fuzztime", "fuzzminimizetime", "list", "memprofile",
	"memprofilerate", "mutexprofile", "mutexprofilefraction", "outputdir", "parallel", "run", "skip",
	"shuffle", "timeout", "trace", "vet", "fuzzcachedir", "testlogfile", "gocoverdir")

// goRunnerSubs are the go commands that run the code of the packages
// they build, and whether they run its _test.go files too.
var goRunnerSubs = map[string]bool{"run": false, "test": true}

// goPackageCode judges the written Go files of the packages go run or go
// test (u) builds and runs.
func (a *analyzer) goPackageCode(u *unit) {
	tests, ok := goRunnerSubs[u.arg(0)]
	if !ok {
		return
	}
	dir := field{val: "."}
	var pkgs []field
	for i := 1; i < len(u.args); i++ {
		f := u.args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(f.val, "-"), "=")
		switch {
		case f.val == "-args" || f.val == "--":
			i = len(u.args)
		case strings.HasPrefix(f.val, "-"):
			name = strings.TrimPrefix(name, "test.")
			if !hasVal && goValueFlags.has(name) && i+1 < len(u.args) {
				i++
				val, f = u.args[i].val, u.args[i]
			}
			if name == "C" {
				dir = field{val: val, dyn: f.dyn}
			}
		case strings.HasSuffix(f.val, ".go"):
			return // files: judged where they are named (dispatch.go)
		default:
			pkgs = append(pkgs, f)
			if !tests {
				i = len(u.args) // go run PKG ARGS…: the rest are the program's
			}
		}
	}
	if dir.dyn {
		return
	}
	if len(pkgs) == 0 && tests {
		pkgs = []field{{val: "."}}
	}
	base := fileKey(u.cwd, u.links, dir)
	for _, p := range pkgs {
		for _, key := range a.writtenFiles(goPackageFile(base, p, tests)) {
			for _, t := range a.keyTexts(u, key) {
				a.codeText(u, "go", t)
			}
		}
	}
}

// goPackageFile returns whether a written file's key is a Go file of the
// package pattern p, from the directory key base: a relative or absolute
// directory (./... all below it); an import path may be any package of
// the module, so any written Go file; one at a version (x@v1) is fetched.
func goPackageFile(base string, p field, tests bool) func(string) bool {
	dir, all := strings.CutSuffix(p.val, "/...")
	if p.val == "..." {
		dir, all = ".", true
	}
	local := !p.dyn && (dir == "." || dir == ".." || strings.HasPrefix(dir, "./") || strings.HasPrefix(dir, "../") || strings.HasPrefix(dir, "/"))
	if !local && strings.Contains(p.val, "@") {
		return func(string) bool { return false }
	}
	if !strings.HasPrefix(dir, "/") {
		dir = path.Join(base, dir)
	}
	dk := cleanTarget(dir)
	return func(k string) bool {
		if !strings.HasSuffix(k, ".go") || !tests && strings.HasSuffix(k, "_test.go") {
			return false
		}
		if !local {
			return true
		}
		rel, ok := keyUnder(k, dk)
		return ok && (all || !strings.Contains(rel, "/"))
	}
}
