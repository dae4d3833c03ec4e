package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	if rtHave(t, "bash", "rustc", "cargo") {
		out, err := exec.Command("rustc", "--print", "sysroot").Output()
		sysroot := strings.TrimSpace(string(out))
		host, _ := exec.Command("rustc", "-vV").Output()
		if err != nil || sysroot == "" {
			t.Fatalf("premise: rustc --print sysroot: %v %q", err, out)
		}
		if !strings.Contains(string(host), "host: x86_64-unknown-linux-gnu") {
			t.Skipf("premise written for an x86_64-unknown-linux-gnu host: %s", host)
		}
		bin := filepath.Join(sysroot, "bin")
		for _, line := range lines {
			home, work := rt52bHome(t)
			if err := os.MkdirAll(filepath.Join(work, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, "Cargo.toml"), []byte("[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, "src", "main.rs"), []byte("fn main() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got := rt52bRun(t, home, work, line, "PATH="+bin+":/usr/local/bin:/usr/bin:/bin",
				"CARGO_HOME="+filepath.Join(home, ".cargo"), "RUSTC="+filepath.Join(bin, "rustc"))
			if !rt52bGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, got)
			}
		}
	}
	// Reference: the same runner as a --config value.
	rtAtLeast(t, []string{"bash"}, `cargo --config 'target.x86_64-unknown-linux-gnu.runner=["sh","-c","rm -rf ~/.ssh"]' run --offline`, Forbidden)
	// Controls: a harmless configuration file.
	rtBelow(t, `printf '[build]\ntarget-dir = "out"\n' > x.toml; cargo --config x.toml build`, Escalated)
	rtBelow(t, `mkdir -p .cargo; printf '[build]\njobs = 2\n' > .cargo/config.toml; cargo build`, Escalated)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash"}, line, Escalated)
	}
}
