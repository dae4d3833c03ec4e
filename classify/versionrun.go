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
// prints anything (found by red-team round 60). The first holds for every
// rule that allows a program by its name (plainCall: ./ls is no ls).

// versionReadsProject are the programs whose start runs what the project
// configures: Maven's launchers put .mvn/jvm.config into the JVM's options
// (-XX:OnOutOfMemoryError=CMD runs CMD), Gradle's and sbt's read the
// project's JVM options and wrapper properties, and rustup's proxies run
// the toolchain rust-toolchain.toml names by path; yarn runs the release
// .yarnrc's yarn-path (.yarnrc.yml's yarnPath) names, bazel and bazelisk
// the workspace's tools/bazel.
var versionReadsProject = newSet("mvn", "mvnw", "mvnd", "mvnDebug", "gradle", "gradlew", "sbt", "sbtn", "lein",
	"yarn", "yarnpkg", "bazel", "bazelisk",
	"cargo", "rustc", "rustdoc", "rustup", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "cargo-miri",
	"rust-gdb", "rust-gdbgui", "rust-lldb", "rust-analyzer", "rls")

// systemProgramDirs are the directories of installed programs, outside
// any project, a program word may name (/usr/bin/git --version).
var systemProgramDirs = []string{"/bin/", "/sbin/", "/usr/", "/opt/", "/nix/store/", "/snap/", "/System/", "/Library/",
	"/Applications/"}

// projectProgram reports whether u's program is named by a path that may
// be the project's (./gradlew, bin/x, ../tools/x, /tmp/w/x): a file an
// earlier command may have written, whose text the line does not know,
// so no rule that allows a program by its name applies (found by red-team
// round 60: ./gradlew --version was a version check).
func projectProgram(u *unit) bool {
	if !strings.Contains(u.prog, "/") {
		return false
	}
	p := path.Clean(u.prog)
	for _, d := range systemProgramDirs {
		if strings.HasPrefix(p, d) {
			return false
		}
	}
	if top, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/"); strings.HasPrefix(p, "/") && strings.ContainsAny(top, "*?[") {
		// /b?n/true: a glob in the top directory is the project's
		// only where it may match where projects and temporary files
		// live.
		for _, r := range writableRoots {
			if ok, err := path.Match(top, r); ok || err != nil {
				return true
			}
		}
		return false
	}
	return true
}

// writableRoots are the top directories below which a project or a
// temporary file may be.
var writableRoots = []string{"tmp", "home", "root", "Users", "var", "private", "mnt", "media", "srv", "run", "dev",
	"work", "workspace", "workspaces", "data", "proj", "src", "build", "app", "code"}

// versionCheckSafe reports whether u's program may print its version
// without running the project's code: not one of versionReadsProject.
func versionCheckSafe(u *unit) bool { return !versionReadsProject.has(u.name) }
