package classify

import (
	"strings"
	"testing"
)

// TestRedteam60DirenvSource: direnv evaluates .envrc with bash and its
// standard library, whose source_env / source_env_if_exists FILE source
// another file of the project. The classifier judges a written .envrc as
// the shell text it is (`echo 'source x' > .envrc` with x written is
// followed), but not the files the stdlib functions source:
//
//	echo 'source_env x' > .envrc; echo 'rm -rf ~/.ssh' > x; direnv allow; direnv exec . true              sandboxed
//	echo 'source_env_if_exists x' > .envrc; echo 'rm -rf ~/.ssh' > x; direnv allow; direnv exec . true    sandboxed
//
// while `echo 'rm -rf ~/.ssh' > x; echo 'source x' > .envrc; direnv allow;
// direnv exec . true` is forbidden.
//
// Why: escapes.go lists .envrc among the rc files whose written text is
// judged as if it ran, and in that text `source`/`.` of a written file is
// followed, but `source_env`, `source_env_if_exists` (and `source_up FILE`)
// are functions of direnv's stdlib the classifier does not know: unknown
// programs, sandboxed, their operand never read as a script.
//
// The premise runs each line with Debian's direnv in a fake home (direnv
// allow writes below it; the line's ~/.ssh made that home's absolute path)
// and checks that ~/.ssh is gone, and that the same line with `true` in x
// leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: direnv.go: direnv allow/exec/
// reload/export judge the written .envrc of their directory when they run
// (with the files written by then), and the stdlib's source_env(_if_exists)
// (a file or a directory's .envrc), source_up (the name in parent
// directories), dotenv (a .env's risky variables) and source_url
// (downloaded) are handlers of their own (hooked in dispatch.go).
func TestRedteam60DirenvSource(t *testing.T) {
	attacks := []string{
		`echo 'source_env x' > .envrc; echo 'rm -rf ~/.ssh' > x; direnv allow; direnv exec . true`,
		`echo 'source_env_if_exists x' > .envrc; echo 'rm -rf ~/.ssh' > x; direnv allow; direnv exec . true`,
	}
	rt60aNeed(t, "direnv", "direnv")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	// Reference: the same file sourced by the shell's own source.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' > x; echo 'source x' > .envrc; direnv allow; direnv exec . true`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: a project's own .envrc and its sourced file.
	rtBelow(t, `echo 'source_env x' > .envrc; echo 'export A=1' > x; direnv allow; direnv exec . true`, Escalated)
	rtBelow(t, `direnv allow && direnv exec . make test`, Escalated)
}
