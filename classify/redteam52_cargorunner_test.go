package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam52CargoRunner: cargo runs the program its configuration names
// as a target's runner (`cargo run`, `cargo test`, `cargo bench` start the
// built binary through it), and the configuration can be given on the line:
//
//	cargo --config 'target.x86_64-unknown-linux-gnu.runner=["sh","-c","rm -rf ~/.ssh"]' run --offline   sandboxed
//	CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="rm -rf $HOME/.ssh" cargo run --offline                 sandboxed
//
// where the Go equivalents, `go test -exec 'rm -rf ~/.ssh' ./...` and `go
// build -toolexec 'rm -rf ~/.ssh' .`, are forbidden, as are `make
// --eval='x:; rm -rf ~/.ssh'` and `GIT_PAGER='rm -rf ~/.ssh;' git log`.
//
// Why: the classifier models go's -exec/-toolexec and git's and make's
// command options (escapes.go, gitalias.go, makefile.go), but nothing of
// cargo: `--config KEY=VALUE` (a TOML value; `runner`, `build.rustc-wrapper`,
// `build.rustc`, `target.*.linker` name programs) and the CARGO_TARGET_*_RUNNER
// / RUSTC_WRAPPER environment variables (envconfig.go knows no cargo
// variable) are plain arguments, so the command they carry is never judged.
//
// The premise builds a one-file crate offline (the toolchain found through
// `rustc --print sysroot`, CARGO_HOME in the fake home) and checks that
// ~/.ssh is gone after each line.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 52.
// Fixed: cargo --config runner, linker and wrapper keys, and
// CARGO_TARGET_*_RUNNER and the like, are judged as the commands they run
// (cargoConfig, isCodeVar).
func TestRedteam52CargoRunner(t *testing.T) {
	lines := []string{
		`cargo --config 'target.x86_64-unknown-linux-gnu.runner=["sh","-c","rm -rf ~/.ssh"]' run --offline`,
		`CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="rm -rf $HOME/.ssh" cargo run --offline`,
	}
	rt52bCargoPremise(t, lines)
	// References: go's and make's command options.
	rtAtLeast(t, []string{"bash"}, `go test -exec 'rm -rf ~/.ssh' ./...`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `go build -toolexec 'rm -rf ~/.ssh' .`, Forbidden)
	// Controls: everyday cargo lines.
	rtBelow(t, `cargo run --offline`, Escalated)
	rtBelow(t, `cargo --config 'build.target-dir="out"' build`, Escalated)
	rtBelow(t, `CARGO_TARGET_DIR=out cargo test`, Escalated)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
}

// rt52bCargoPremise runs each line with cargo in a one-file crate of a fake
// home (offline, the toolchain's own rustc) and requires that it removed
// ~/.ssh. It skips on a host the runner keys are not written for.
func rt52bCargoPremise(t *testing.T, lines []string) {
	t.Helper()
	if !rtHave(t, "bash", "rustc", "cargo") {
		return
	}
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
