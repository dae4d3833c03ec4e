package classify

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam60CargoBuildRs: cargo compiles and runs a package's build
// script, build.rs at the package root, before it compiles the package, on
// every command that compiles it: `cargo check` and `cargo build` too, not
// only `cargo run`/`cargo test`. A line that writes build.rs and checks the
// crate runs any command:
//
//	cargo init -q --vcs none --name x; echo 'fn main(){std::process::Command::new("sh").args(["-c","rm -rf ~/.ssh"]).status().unwrap();}' > build.rs; cargo check --offline   sandboxed
//	cargo init -q --vcs none --name x; echo '…same…' > build.rs; cargo build --offline                                                                                      sandboxed
//
// where the same command planted for make, npm, rake, go generate or a
// pytest conftest.py is forbidden.
//
// Why: the files a tool reads as code by its own convention are followed
// for make, npm, rake, pytest, go generate and cargo's configuration files
// (toolscripts.go:runnerCode, makefile.go, rubycode.go, cargoConfig), not
// for cargo's build.rs (nor Cargo.toml's `package.build = "FILE"`): Rust
// code is never scanned (shells.go:codeText has no Rust), so a build
// script's Command::new("sh").args(["-c", …]) is not judged and `cargo
// check` stays sandboxed.
//
// The premise builds the crate offline (the toolchain found through `rustc
// --print sysroot`, CARGO_HOME a temporary directory of the test's; the line's ~/.ssh made
// that home's absolute path) and checks that ~/.ssh is gone, and that the
// same line with `true` leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: cargobuild.go judges the Rust code
// cargo runs where the line wrote it (build.rs, Cargo.toml's build, every
// .rs for run/test/bench and procedural macros) on every compiling
// subcommand; rustcode.go reads Rust's Command::new(…).arg/.args as the
// argument vectors they run (scanCode's "rust").
func TestRedteam60CargoBuildRs(t *testing.T) {
	const rs = `'fn main(){std::process::Command::new("sh").args(["-c","rm -rf ~/.ssh"]).status().unwrap();}'`
	attacks := []string{
		`cargo init -q --vcs none --name x; echo ` + rs + ` > build.rs; cargo check --offline`,
		`cargo init -q --vcs none --name x; echo ` + rs + ` > build.rs; cargo build --offline`,
	}
	rt60aNeed(t, "cargo (rustup or Debian's cargo)", "rustc", "cargo")
	out, err := exec.Command("rustc", "--print", "sysroot").Output()
	sysroot := strings.TrimSpace(string(out))
	if err != nil || sysroot == "" {
		t.Fatalf("premise: rustc --print sysroot: %v %q", err, out)
	}
	bin := filepath.Join(sysroot, "bin")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"),
			"PATH="+bin+":/usr/local/bin:/usr/bin:/bin", "CARGO_HOME="+t.TempDir(),
			"RUSTC="+filepath.Join(bin, "rustc"), "CARGO_NET_OFFLINE=true")
	}
	// References: the same command planted for make and for pytest.
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `printf 'import os\nos.system("rm -rf ~/.ssh")\n' > conftest.py; pytest`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday cargo lines, a harmless build script.
	rtBelow(t, `cargo check --offline && cargo build --release`, Escalated)
	rtBelow(t, `echo 'fn main(){println!("cargo:rerun-if-changed=build.rs");}' > build.rs; cargo build`, Escalated)
}
