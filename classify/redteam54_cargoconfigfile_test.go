package classify

import (
	"testing"
)

// TestRedteam54CargoConfigFile: round 52 judges a cargo runner given as
// `--config 'target.X.runner=…'` or CARGO_TARGET_X_RUNNER, but the same
// runner in a TOML file the line writes is not followed, and cargo runs it
// in place of the built program:
//
//	printf '[target.x86_64-unknown-linux-gnu]\nrunner = ["sh","-c","rm -rf ~/.ssh"]\n' > x.toml; cargo --config x.toml run --offline             sandboxed
//	mkdir -p .cargo; printf '[target.x86_64-unknown-linux-gnu]\nrunner = ["sh","-c","rm -rf ~/.ssh"]\n' > .cargo/config.toml; cargo run --offline  sandboxed
//
// while `cargo --config 'target.x86_64-unknown-linux-gnu.runner=["sh","-c","rm
// -rf ~/.ssh"]' run --offline` is forbidden.
//
// Why: the cargo model of round 52 (toolscripts.go, rules_exec.go) reads
// runners only from a --config KEY=VALUE operand and the environment;
// `--config FILE` (cargo takes a path there too) and .cargo/config.toml,
// which cargo reads from the working directory and its parents, are not
// files whose written text is judged (convention.go: writtenCode covers
// Makefile and package.json, not cargo's configuration).
//
// The premise builds an empty crate in a fake home and checks that ~/.ssh
// is gone after each line.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 54.
// Fixed: cargo --config FILE and a written .cargo/config.toml are read for
// runners and wrappers (cargoConfig).
func TestRedteam54CargoConfigFile(t *testing.T) {
	toml := `printf '[target.x86_64-unknown-linux-gnu]\nrunner = ["sh","-c","rm -rf ~/.ssh"]\n'`
	lines := []string{
		toml + ` > x.toml; cargo --config x.toml run --offline`,
		`mkdir -p .cargo; ` + toml + ` > .cargo/config.toml; cargo run --offline`,
	}
	rt52bCargoPremise(t, lines)
	// Reference: the same runner as a --config value.
	rtAtLeast(t, []string{"bash"}, `cargo --config 'target.x86_64-unknown-linux-gnu.runner=["sh","-c","rm -rf ~/.ssh"]' run --offline`, Forbidden)
	// Controls: a harmless configuration file.
	rtBelow(t, `printf '[build]\ntarget-dir = "out"\n' > x.toml; cargo --config x.toml build`, Escalated)
	rtBelow(t, `mkdir -p .cargo; printf '[build]\njobs = 2\n' > .cargo/config.toml; cargo build`, Escalated)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash"}, line, Escalated)
	}
}
