package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam61GoRunPackage: `go run` builds and runs a package named by
// its directory as readily as by its files, and `go test` runs a
// package's test binary, whose TestMain (and any init) is the code the
// line wrote:
//
//	printf 'package main\nimport "os"\nfunc main() { os.RemoveAll(os.Getenv("HOME") + "/.ssh") }\n' > main.go; go run .   sandboxed
//	(the same) > cmd/x/main.go; go run ./cmd/x                                                                          sandboxed
//	(the same) > tool/main.go; cd tool && go run .                                                                      sandboxed
//	printf 'package p\nimport (\n"os"\n"testing"\n)\nfunc TestMain(m *testing.M) { os.RemoveAll(…) }\n' > p_test.go; go test .   sandboxed
//
// remove ~/.ssh, where `… > main.go; go run main.go` (and `cd tool && go
// run main.go`) are judged (escalated, dynamic-delete-target).
//
// Why: dispatch.go (the `go run` case after handlerFor) looks each
// argument up as a written file only (a.files[fileKey(u.cwd, u.links,
// f)]), so a directory argument (., ./cmd/x), the form every Go project
// uses, finds nothing; and toolscripts.go:runnerCode has, for go, only
// `go generate`: `go test` judges none of
// the written _test.go files, though it runs them.
//
// The premise runs each line with the real go (GOPROXY=off, a module
// go.mod the test writes, caches in the test's directories) in a fake home
// and checks that its ~/.ssh is gone, and that the same line with a
// harmless body leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed, where the same code as a file argument escalates). Found by
// red-team round 61. Fixed: goruns.go:goPackageCode judges the written Go
// files of every package go run and go test name (directories, ./...,
// -C DIR, import paths as any written package; go test with none: ".";
// the value flags of both in a table), _test.go files for go test.
func TestRedteam61GoRunPackage(t *testing.T) {
	const body = `os.RemoveAll(os.Getenv("HOME") + "/.ssh")`
	main := `printf 'package main\nimport "os"\nfunc main() { ` + body + ` }\n'`
	test := `printf 'package p\nimport (\n"os"\n"testing"\n)\nfunc TestMain(m *testing.M) { ` + body + ` }\n'`
	attacks := []string{
		main + ` > main.go; go run .`,
		`mkdir -p cmd/x; ` + main + ` > cmd/x/main.go; go run ./cmd/x`,
		`mkdir -p tool; ` + main + ` > tool/main.go; cd tool && go run .`,
		test + ` > p_test.go; go test .`,
		test + ` > p_test.go; go test -run TestNothing ./...`,
	}
	gobin := "/usr/local/go/bin"
	if _, err := os.Stat(filepath.Join(gobin, "go")); err != nil {
		rt60aNeed(t, "golang-go", "go")
		gobin = "/usr/lib/go/bin"
	}
	cache := t.TempDir()
	env := []string{"PATH=" + gobin + ":/usr/local/bin:/usr/bin:/bin", "GOCACHE=" + filepath.Join(cache, "build"),
		"GOPATH=" + filepath.Join(cache, "gopath"), "GOPROXY=off", "GOTOOLCHAIN=local", "TMPDIR=" + cache, "CGO_ENABLED=0",
		// No telemetry: go leaves a process writing ~/.config/go/telemetry
		// after it exits, racing the cleanup of the scratch home (as round
		// 52's premise did in CI).
		"XDG_CONFIG_HOME=/dev/null/none", "GOENV=off", "GOFLAGS=-mod=mod"}
	setup := func(t *testing.T, work string) {
		if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte("module proj\n\ngo 1.21\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range attacks {
		// The control keeps the import used. TMPDIR is moved off the working
		// directory: go ignores a go.mod in the temporary directory itself.
		rt61aPremise(t, setup, l, strings.ReplaceAll(l, body, `_ = os.Getenv("HOME")`), env...)
	}
	// References: the same programs named by their files.
	rtAtLeast(t, []string{"bash"}, main+` > main.go; go run main.go`, Escalated)
	rtAtLeast(t, []string{"bash"}, `mkdir -p tool; `+main+` > tool/main.go; cd tool && go run main.go`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday go runs and tests.
	rtBelow(t, `go run .`, Escalated)
	rtBelow(t, `go test ./...`, Escalated)
	rtBelow(t, `go run ./cmd/server -addr :8080`, Escalated)
	rtBelow(t, `printf 'package main\nimport "fmt"\nfunc main() { fmt.Println("hi") }\n' > main.go; go run .`, Escalated)
	rtBelow(t, `printf 'package p\nimport "testing"\nfunc TestX(t *testing.T) {}\n' > p_test.go; go test .`, Escalated)
}

// TestRedteam61GoGenerateForms: two //go:generate lines go generate runs
// that the classifier does not read:
//
//	mkdir g; cd g; printf 'package g\n//go:generate rm -rf ~/.ssh\n' > g.go; go generate     sandboxed
//	printf 'package g\n//go:generate\trm -rf ~/.ssh\n' > g.go; go generate                  sandboxed
//
// remove ~/.ssh, where the same file written without the cd (or with a
// space after the directive) is judged (forbidden).
//
// Why: toolscripts.go:goGenerate takes the keys of a.files (paths already
// resolved against the directory they were written in: "g/g.go") and
// hands each to writtenTexts as a relative path, which fileKey resolves
// against u.cwd once more ("g/g/g.go"): after any cd into a relative
// directory nothing is found (round 60 noted it; no test held it). And it
// looks for the prefix "//go:generate " only, while cmd/go's isGoGenerate
// also accepts "//go:generate\t".
//
// The premise runs each line with the real go (a go.mod the test writes,
// GOPROXY=off) in a fake home and checks that its ~/.ssh is gone, and that
// the same line with `true` leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: goGenerate reads keys
// with keyTexts (round 60's fix, now held by this test), and
// toolscripts.go:goGenerateLine takes a space or a tab after the
// directive, as cmd/go's isGoGenerate does.
func TestRedteam61GoGenerateForms(t *testing.T) {
	attacks := []string{
		`mkdir g; cd g; printf 'package g\n//go:generate rm -rf ~/.ssh\n' > g.go; go generate`,
		`mkdir -p g && cd g && printf 'package g\n//go:generate rm -rf ~/.ssh\n' > g.go && go generate ./...`,
		`printf 'package g\n//go:generate\trm -rf ~/.ssh\n' > g.go; go generate`,
	}
	gobin := "/usr/local/go/bin"
	if _, err := os.Stat(filepath.Join(gobin, "go")); err != nil {
		rt60aNeed(t, "golang-go", "go")
		gobin = "/usr/lib/go/bin"
	}
	cache := t.TempDir()
	env := []string{"PATH=" + gobin + ":/usr/local/bin:/usr/bin:/bin", "GOCACHE=" + filepath.Join(cache, "build"),
		"GOPATH=" + filepath.Join(cache, "gopath"), "GOPROXY=off", "GOTOOLCHAIN=local", "TMPDIR=" + cache, "CGO_ENABLED=0",
		// No telemetry: go leaves a process writing ~/.config/go/telemetry
		// after it exits, racing the cleanup of the scratch home (as round
		// 52's premise did in CI).
		"XDG_CONFIG_HOME=/dev/null/none", "GOENV=off"}
	setup := func(t *testing.T, work string) {
		if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte("module proj\n\ngo 1.21\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range attacks {
		rt61aPremise(t, setup, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), env...)
	}
	// References: the same directive without the cd, with a space.
	rtAtLeast(t, []string{"bash"}, `mkdir -p g; printf 'package g\n//go:generate rm -rf ~/.ssh\n' > g/g.go; go generate ./g`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `printf 'package g\n//go:generate rm -rf ~/.ssh\n' > g.go; go generate`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday generate lines.
	rtBelow(t, `cd internal/api && go generate ./...`, Escalated)
	rtBelow(t, `mkdir g; cd g; printf 'package g\n//go:generate stringer -type=Kind\n' > g.go; go generate`, Escalated)
}
