package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam62CMakeE: `cmake -E` is CMake's portable command tool: its
// rm (-r -f), remove_directory, copy, rename … act on files directly, and
// its env, time and chdir run a command, like env, time and cd … &&. The
// classifier knows nothing of cmake, so
//
//	cmake -E rm -rf ~                      sandboxed   (rm -rf ~ is forbidden)
//	cmake -E rm -rf /                      sandboxed   (rm -rf / is forbidden)
//	cmake -E env rm -rf ~                  sandboxed   (env rm -rf ~ is forbidden)
//	cmake -E env FOO=1 sh -c 'rm -rf ~'    sandboxed
//	cmake -E time rm -rf ~                 sandboxed   (time rm -rf ~ is forbidden)
//	cmake -E chdir ~ rm -rf .ssh           sandboxed   (cd ~ && rm -rf .ssh is forbidden)
//	echo 'rm -rf ~' > x; cmake -E copy x ~/.bashrc   sandboxed   (… cp x ~/.bashrc is forbidden)
//
// Only a path under ~/.ssh on the line escalates (credential-access reads
// the words alone).
//
// Why: cmake is in no wrapper table (wrappers.go), no delete or write
// target table (rules_destructive.go, writetargets.go): `cmake` falls
// through to the default, sandboxed.
//
// The premise runs each deleting line with Debian's cmake (package cmake)
// in a fake home and checks that its ~/.ssh (or the home) is gone, the
// control `cmake -E rm -rf build` leaving it; and the copy line, checking
// that the fake ~/.bashrc then holds `rm -rf ~`. The `/` line is not run:
// the `~` line shows the same removal.
//
// Severity: high (forbidden deletions of the home and /, and a forbidden
// rc-file write, judged sandboxed). Found by red-team round 62. Fixed:
// cmaketool.go: a dispatch handler runs `cmake -E CMD` as the command of
// the cmakeECommands table (rm, remove_directory → rm -rf, copy → cp,
// rename → mv, env, time, chdir → env -C …), as busybox's applets, and
// follows what it writes (rememberOther).
func TestRedteam62CMakeE(t *testing.T) {
	deletes := []string{
		`cmake -E rm -rf ~`,
		`cmake -E env rm -rf ~`,
		`cmake -E env FOO=1 sh -c 'rm -rf ~'`,
		`cmake -E time rm -rf ~`,
		`cmake -E chdir ~ rm -rf .ssh`,
	}
	const rc = `echo 'rm -rf ~' > x; cmake -E copy x ~/.bashrc`
	rt60aNeed(t, "cmake", "cmake")
	for _, l := range deletes {
		rt60aPremise(t, l, `cmake -E rm -rf build`)
	}
	home, work := rt60aHome(t)
	out := rt60aRun(t, home, work, rc)
	if b, err := os.ReadFile(filepath.Join(home, ".bashrc")); err != nil || !strings.Contains(string(b), "rm -rf ~") {
		t.Fatalf("premise: %q did not write the fake ~/.bashrc (%q, %v; output %q)", rc, b, err, out)
	}
	// References: the same effects without cmake.
	for _, l := range []string{`rm -rf ~`, `env rm -rf ~`, `time rm -rf ~`, `cd ~ && rm -rf .ssh`, `rm -rf /`, `echo 'rm -rf ~' > x; cp x ~/.bashrc`} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	// The attack.
	for _, l := range append(deletes, `cmake -E rm -rf /`, `cmake -E remove_directory /`, rc) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday cmake -E in build scripts.
	rtBelow(t, `cmake -E rm -rf build`, Escalated)
	rtBelow(t, `cmake -E make_directory build && cmake -E chdir build cmake ..`, Escalated)
	rtBelow(t, `cmake -E copy_if_different a.h include/a.h`, Escalated)
	rtBelow(t, `cmake -E env CC=clang cmake -S . -B build`, Escalated)
}
