package classify

import "testing"

// TestRedteam52GoGenerate: `go generate` runs each `//go:generate CMD …`
// line of the Go files it is given (or of the packages' files) as a
// command, the way make runs a recipe:
//
//	printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > gen.go && go generate gen.go   sandboxed
//	printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > gen.go && go generate ./...    sandboxed
//
// where the same command in a written Makefile, `printf 'x:\n\trm -rf
// ~/.ssh\n' > Makefile && make`, and given to go itself, `go test -exec
// 'rm -rf ~/.ssh' ./...`, are forbidden.
//
// Why: the classifier follows files the line writes into make (convention.go: writtenCode),
// shells, npm and a few interpreters, but `go generate` is a plain go
// subcommand to it (escapes.go models -exec/-toolexec only); the
// directives of a written .go file are never read as commands.
//
// The premise runs the first line in a fake home (GOCACHE/GOPATH in the
// working directory, GOTOOLCHAIN=local) and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 52.
// Fixed: go generate judges the //go:generate lines of the Go files the
// line wrote (goGenerate).
func TestRedteam52GoGenerate(t *testing.T) {
	lines := []string{
		`printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > gen.go && go generate gen.go`,
		`printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > gen.go && go generate ./...`,
		// After a cd the written files were looked up from the new
		// directory again, and missed (round 60's fixer): keyTexts.
		`mkdir -p w; printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > w/gen.go; cd w; go generate`,
		`mkdir -p w; cd w; printf 'package main\n//go:generate sh -c "rm -rf ~/.ssh"\n' > gen.go; go generate`,
	}
	if rtHave(t, "bash", "go") {
		home, work := rt52bHome(t)
		out := rt52bRun(t, home, work, lines[0], "PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin",
			"GOCACHE="+work+"/.gocache", "GOPATH="+work+"/.gopath", "GOTOOLCHAIN=local", "GOFLAGS=",
			// No telemetry: the go command leaves a process that writes
			// ~/.config/go/telemetry after it exits, racing the test's
			// cleanup of the home (a failure seen in CI).
			"XDG_CONFIG_HOME=/dev/null/none", "GOENV=off")
		if !rt52bGone(home) {
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", lines[0], out)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `printf 'x:\n\trm -rf ~/.ssh\n' > Makefile && make`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `go test -exec 'rm -rf ~/.ssh' ./...`, Forbidden)
	// Controls.
	rtBelow(t, `go generate ./...`, Escalated)
	rtBelow(t, `printf 'package main\n//go:generate stringer -type=Pill\n' > gen.go && go generate gen.go`, Escalated)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
}
