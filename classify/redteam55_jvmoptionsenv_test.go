package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam55JvmOptionsEnv: every HotSpot JVM reads options from
// JAVA_TOOL_OPTIONS (and _JAVA_OPTIONS; the java launcher also from
// JDK_JAVA_OPTIONS, Maven's launcher from MAVEN_OPTS), and an option
// there may load code: -javaagent:JAR runs the jar's premain before
// anything else, -agentpath:LIB.so loads a native library, so
//
//	JAVA_TOOL_OPTIONS=-javaagent:agent.jar java -version      allow (version-check)
//	JDK_JAVA_OPTIONS=-javaagent:agent.jar java --version      allow
//	_JAVA_OPTIONS=-javaagent:agent.jar java -version          allow
//	MAVEN_OPTS=-javaagent:agent.jar mvn -v                    allow
//	JAVA_TOOL_OPTIONS=-agentpath:./libx.so java -version      allow
//
// run whatever the file holds, judged allow, where the variables that
// make other programs load code are eval-exec (escalated):
// `LD_PRELOAD=./x.so ls`, `NODE_OPTIONS='--require ./x.js' node
// --version`, `PERL5OPT=-Mx perl -v`, `PYTHONSTARTUP=x python3
// --version`.
//
// Why: riskyEnv/loaderVars (rules_exec.go) list the loader and start-up
// variables of the dynamic linker, bash, perl, ruby, node, python, git,
// less and man, not the JVM's; with no risky assignment the allow rule
// version-check (rules_allow.go) matches `java -version`/`mvn -v`.
//
// The premise builds a java agent whose premain removes ~/.ssh (javac and
// jar in a temporary directory), then runs each JVM line in a fake home
// and checks that ~/.ssh is gone.
//
// Severity: high (code loaded from a file, which the classifier escalates
// as eval-exec for every other loader variable, judged allow: it runs
// without a person's approval).
// Found by red-team round 55. Fixed: the JVM options variables are loader variables, risky where
// they load code (rules_exec.go: jvmOptsRunCode).
func TestRedteam55JvmOptionsEnv(t *testing.T) {
	premises := []string{
		`JAVA_TOOL_OPTIONS=-javaagent:agent.jar java -version`,
		`JDK_JAVA_OPTIONS=-javaagent:agent.jar java --version`,
		`_JAVA_OPTIONS=-javaagent:agent.jar java -version`,
	}
	if rtHave(t, "bash", "java", "javac", "jar") {
		build := t.TempDir()
		src := `public class Agent {
    public static void premain(String args) throws Exception {
        new ProcessBuilder("sh", "-c", "rm -rf \"$HOME/.ssh\"").inheritIO().start().waitFor();
    }
}
`
		if err := os.WriteFile(filepath.Join(build, "Agent.java"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(build, "m.txt"), []byte("Premain-Class: Agent\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		home, _ := rt55aHome(t)
		if out := rt55aRun(t, home, build, `javac -d . Agent.java && jar cfm agent.jar m.txt Agent.class`); rt55aGone(home) {
			t.Fatalf("premise: building the agent removed ~/.ssh: %q", out)
		}
		jar, err := os.ReadFile(filepath.Join(build, "agent.jar"))
		if err != nil {
			t.Fatalf("premise: no agent.jar: %v", err)
		}
		lines := premises
		if rtHave(t, "mvn") {
			lines = append(lines, `MAVEN_OPTS=-javaagent:agent.jar mvn -v`)
		}
		for _, l := range lines {
			home, work := rt55aHome(t)
			if err := os.WriteFile(filepath.Join(work, "agent.jar"), jar, 0o644); err != nil {
				t.Fatal(err)
			}
			out := rt55aRun(t, home, work, l)
			if !rt55aGone(home) {
				t.Fatalf("premise: %q did not run the agent (output %q)", l, out)
			}
		}
	}
	// References: other loader variables.
	rtAtLeast(t, []string{"bash", "sh"}, `LD_PRELOAD=./x.so ls`, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `NODE_OPTIONS='--require ./x.js' node --version`, Escalated)
	// The attack.
	for _, l := range append(premises,
		`MAVEN_OPTS=-javaagent:agent.jar mvn -v`,
		`JAVA_TOOL_OPTIONS=-agentpath:./libx.so java -version`,
		`export JAVA_TOOL_OPTIONS=-javaagent:agent.jar; java -version`,
	) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: heap and property settings stay allowed or sandboxed.
	rtBelow(t, `JAVA_TOOL_OPTIONS=-Xmx512m java -version`, Escalated)
	rtBelow(t, `MAVEN_OPTS='-Xmx2g -Dfile.encoding=UTF-8' mvn -v`, Escalated)
	rtBelow(t, `java -version`, Escalated)
}
