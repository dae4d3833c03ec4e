package classify

import (
	"path"
	"strings"
)

// A version or help check is allowed because it only prints: that holds
// for an installed program found on PATH, not for one the line names by a
// path in the project (./gradlew --version, bin/x -h: the file may have
// been written by an earlier command), nor for one that runs the
// project's configuration or a program the project chooses before it
// prints anything (found by red-team round 60).

// versionReadsProject are the programs whose start runs what the project
// configures: Maven's launchers put .mvn/jvm.config into the JVM's options
// (-XX:OnOutOfMemoryError=CMD runs CMD), Gradle's and sbt's read the
// project's JVM options and wrapper properties, and rustup's proxies run
// the toolchain rust-toolchain.toml names by path.
var versionReadsProject = newSet("mvn", "mvnw", "mvnd", "mvnDebug", "gradle", "gradlew", "sbt", "sbtn", "lein",
	"cargo", "rustc", "rustdoc", "rustup", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "cargo-miri",
	"rust-gdb", "rust-gdbgui", "rust-lldb", "rust-analyzer", "rls")

// systemBinDirs are the directories of installed programs outside any
// project a program word may name (/usr/bin/git --version).
var systemBinDirs = newSet("/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
	"/opt/homebrew/bin")

// versionCheckSafe reports whether u's program may print its version
// without running the project's code: found on PATH or in a system
// directory, and not one of versionReadsProject.
func versionCheckSafe(u *unit) bool {
	if versionReadsProject.has(u.name) {
		return false
	}
	return !strings.Contains(u.prog, "/") || systemBinDirs.has(path.Dir(path.Clean(u.prog)))
}
