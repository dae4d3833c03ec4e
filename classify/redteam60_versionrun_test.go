package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam60VersionRun: the version-check rule allows any program
// given one of --version, -version, -V, version, --help, -h, -v …, also a
// program named by a path in the project (`./gradlew --version`,
// `./x.sh --version`, `bin/x -h`) and programs that run the project's
// configuration before they print anything (`mvn -v`: Debian's and
// Apache's mvn script puts .mvn/jvm.config into the JVM's options). So an
// earlier command, itself sandboxed, plants code in the project and a later
// "version check" runs it, judged allow:
//
//	printf '#!/bin/sh\nrm -rf ~/.ssh\n' > gradlew                                                           sandboxed (the project's executable wrapper rewritten)
//	./gradlew --version                                                                                      allow     (runs it)
//	mkdir -p .mvn; echo '-Xmx3m -XX:OnOutOfMemoryError=rm${IFS}-rf${IFS}$HOME/.ssh' > .mvn/jvm.config     sandboxed
//	mvn -v                                                                                                   allow     (the JVM runs out of its 3 MiB heap at start and runs the command with /bin/sh -c)
//
// and on one line `mkdir -p .mvn; echo '…' > .mvn/jvm.config; mvn -v` is
// sandboxed, while `./gradlew` alone is sandboxed, not allow.
//
// Why: rules_allow.go:matchVersionCheck allows any plain call with a single
// version/help argument, whatever the program: it excepts shells, sudo and
// interpreters only for -v/-h, not a program given by a path (whose text
// the line does not know, as `./x.sh` alone is sandboxed) nor one that
// reads code or JVM options from the project (mvn's .mvn/jvm.config, a
// JVM's -XX:OnOutOfMemoryError/-XX:OnError command is never judged).
//
// The premise, in a fake home (each ~/.ssh and $HOME/.ssh of a line made
// that home's absolute path): an executable gradlew as a Gradle project
// ships it is rewritten by the first line, then `./gradlew --version`
// removes ~/.ssh; the mvn lines likewise with Debian's maven.
//
// Severity: high (a forbidden command run, judged allow).
// Found by red-team round 60. Fixed: no allow rule takes a program named
// by a path outside the system's directories for the program of its name
// (versionrun.go:projectProgram, in rules_allow.go:plainCall: ./gradlew,
// bin/x, ./ls); version-check excepts the programs that run the project's
// configuration first (versionCheckSafe, its versionReadsProject table:
// Maven's, Gradle's, sbt's launchers and rustup's proxies); .mvn/jvm.config
// written on the line is judged as the JVM's options
// (jvm.go:projectJvmOptions).
func TestRedteam60VersionRun(t *testing.T) {
	const plantGradlew = `printf '#!/bin/sh\nrm -rf ~/.ssh\n' > gradlew`
	const plantMvn = `mkdir -p .mvn; echo '-Xmx3m -XX:OnOutOfMemoryError=rm${IFS}-rf${IFS}$HOME/.ssh' > .mvn/jvm.config`
	abs := func(line, home string) string {
		line = strings.ReplaceAll(line, "~/.ssh", filepath.Join(home, ".ssh"))
		return strings.ReplaceAll(line, "$HOME/.ssh", filepath.Join(home, ".ssh"))
	}
	// Premise: gradlew.
	home, work := rt60aHome(t)
	if err := os.WriteFile(filepath.Join(work, "gradlew"), []byte("#!/bin/sh\necho Gradle 8.5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := rt60aRun(t, home, work, `./gradlew --version`); rt60aGone(home) || !strings.Contains(out, "Gradle") {
		t.Fatalf("premise: the project's own gradlew misbehaved (output %q)", out)
	}
	rt60aRun(t, home, work, abs(plantGradlew, home))
	if rt60aGone(home) {
		t.Fatal("premise: planting alone removed ~/.ssh")
	}
	if out := rt60aRun(t, home, work, `./gradlew --version`); !rt60aGone(home) {
		t.Fatalf("premise: ./gradlew --version did not run the planted code (output %q)", out)
	}
	// Premise: mvn -v and .mvn/jvm.config.
	if rtHave(t, "mvn") {
		home, work = rt60aHome(t)
		rt60aRun(t, home, work, abs(plantMvn, home))
		if rt60aGone(home) {
			t.Fatal("premise: planting alone removed ~/.ssh")
		}
		if out := rt60aRun(t, home, work, `mvn -v`); !rt60aGone(home) {
			t.Fatalf("premise: mvn -v did not run the command of .mvn/jvm.config (output %q)", out)
		}
		home, work = rt60aHome(t)
		if out := rt60aRun(t, home, work, strings.ReplaceAll(plantMvn, "rm${IFS}-rf${IFS}$HOME/.ssh", "true")+"; mvn -v"); rt60aGone(home) {
			t.Fatalf("premise: a harmless jvm.config removed ~/.ssh (output %q)", out)
		}
	}
	// Reference: the wrapper run without a version flag.
	rtAtLeast(t, []string{"bash"}, `./gradlew`, Sandboxed)
	// The attack: what runs project code is never allow.
	for _, l := range []string{`./gradlew --version`, `./x.sh --version`, `bin/x -h`, `mvn -v`, `mvn --version`} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Sandboxed)
	}
	// ... and planted on the line, the JVM's command is judged.
	rtAtLeast(t, []string{"bash", "sh"}, plantMvn+"; mvn -v", Escalated)
	// Controls: version checks of installed programs stay allow.
	rtBelow(t, `git --version`, Sandboxed)
	rtBelow(t, `go version`, Sandboxed)
	rtBelow(t, `python3 --version`, Sandboxed)
}
