package classify

import (
	"strings"
	"testing"
)

// TestRedteam60JvmOnCommand: HotSpot's -XX:OnOutOfMemoryError=CMD (and
// -XX:OnError=CMD) runs CMD with /bin/sh -c when the JVM first runs out of
// memory (or crashes); with a heap small enough, a JVM that does anything
// (print its settings, compile a source file) runs out at once:
//
//	java -Xmx3m '-XX:OnOutOfMemoryError=rm -rf ~/.ssh' -XshowSettings:all -version                                               sandboxed
//	echo 'class X{public static void main(String[] a){}}' > X.java; java -Xmx3m '-XX:OnOutOfMemoryError=rm -rf ~/.ssh' X.java    sandboxed
//
// while the same option handed to the JVM through JAVA_TOOL_OPTIONS is
// escalated (eval-exec), and `bash -c 'rm -rf ~/.ssh'` is forbidden.
//
// Why: rules_exec.go judges the JVM's option variables (JAVA_TOOL_OPTIONS,
// JDK_JAVA_OPTIONS, _JAVA_OPTIONS, MAVEN_OPTS …: round 55) and nothing
// else of it: the JVM's own command line is plain arguments to a program
// no rule knows, so the shell command an -XX:On…=CMD option carries is never judged.
//
// The premise runs each line with Debian's OpenJDK in a fake home (the
// line's ~/.ssh made that home's absolute path) and checks that ~/.ssh is
// gone, and that the same line with `true` leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: jvm.go judges the commands of -XX:OnError/-XX:OnOutOfMemoryError
// given to java, passed by -J (the JDK's tools) or read from an @FILE,
// -XX:VMOptionsFile or -XX:Flags file the line wrote, as shell commands.
func TestRedteam60JvmOnCommand(t *testing.T) {
	attacks := []string{
		`java -Xmx3m '-XX:OnOutOfMemoryError=rm -rf ~/.ssh' -XshowSettings:all -version`,
		`echo 'class X{public static void main(String[] a){}}' > X.java; java -Xmx3m '-XX:OnOutOfMemoryError=rm -rf ~/.ssh' X.java`,
	}
	rt60aNeed(t, "openjdk-17-jre-headless", "java")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	// References: the option through the JVM's variable, the command in a shell.
	rtAtLeast(t, []string{"bash"}, `JAVA_TOOL_OPTIONS='-XX:OnOutOfMemoryError=rm -rf ~/.ssh' java -version`, Escalated)
	rtAtLeast(t, []string{"bash"}, `bash -c 'rm -rf ~/.ssh'`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday JVM lines.
	rtBelow(t, `java -Xmx512m -jar app.jar`, Escalated)
	rtBelow(t, `java -XX:+HeapDumpOnOutOfMemoryError -cp build/classes Main`, Escalated)
}
