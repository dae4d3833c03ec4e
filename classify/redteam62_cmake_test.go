package classify

import (
	"strings"
	"testing"
)

// TestRedteam62CMake: CMake runs code of the project's files at configure
// time (CMakeLists.txt's execute_process, a `-P` script, a `-C` initial
// cache script, a CMAKE_PROJECT_INCLUDE file) and, through the build tool,
// at build time (add_custom_target/add_custom_command), and the classifier
// reads none of them, so a line that writes the file and runs cmake is
// sandboxed:
//
//	printf 'cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\nexecute_process(COMMAND sh -c "rm -rf ~/.ssh")\n' > CMakeLists.txt; cmake -S . -B b   sandboxed
//	printf 'execute_process(COMMAND sh -c "rm -rf ~/.ssh")\n' > x.cmake; cmake -P x.cmake                                                                   sandboxed
//	(init.cmake with the same) … cmake -C init.cmake -S . -B b                                                                                              sandboxed
//	(inc.cmake with the same) … cmake -DCMAKE_PROJECT_INCLUDE=inc.cmake -S . -B b                                                                         sandboxed
//	printf '…add_custom_target(t ALL COMMAND sh -c "rm -rf ~/.ssh")\n' > CMakeLists.txt; cmake -S . -B b && cmake --build b                                  sandboxed
//
// each removes ~/.ssh, where the same text run by sh (`sh -c "rm -rf
// ~/.ssh"`) or a Makefile recipe the line writes and make runs is judged.
//
// Why: nothing in the classifier knows cmake (no cmake in
// toolscripts.go:runnerCode nor anywhere in package classify); cmake falls
// through to the default, sandboxed, whatever project files the line wrote.
//
// The premise runs each line with Debian's cmake (package cmake; the
// --build line also needs make) in a fake home and checks that its ~/.ssh
// is gone, and that the same line running `true` instead leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 62. Fixed: buildsystems.go's
// buildTools table follows cmake to its CMakeLists.txt (-S DIR, SRC
// operand), -P and -C scripts and the -D
// CMAKE_PROJECT_INCLUDE/TOOLCHAIN_FILE files; cmakeCommands judges each
// COMMAND of execute_process, add_custom_command and add_custom_target as
// the command line it is.
func TestRedteam62CMake(t *testing.T) {
	const rm = `sh -c "rm -rf ~/.ssh"`
	const head = `cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\n`
	attacks := []string{
		`printf '` + head + `execute_process(COMMAND ` + rm + `)\n' > CMakeLists.txt; cmake -S . -B b`,
		`printf 'execute_process(COMMAND ` + rm + `)\n' > x.cmake; cmake -P x.cmake`,
		`printf 'execute_process(COMMAND ` + rm + `)\n' > init.cmake; printf '` + head + `' > CMakeLists.txt; cmake -C init.cmake -S . -B b`,
		`printf 'execute_process(COMMAND ` + rm + `)\n' > inc.cmake; printf '` + head + `' > CMakeLists.txt; cmake -DCMAKE_PROJECT_INCLUDE=inc.cmake -S . -B b`,
		`printf '` + head + `add_custom_target(t ALL COMMAND ` + rm + `)\n' > CMakeLists.txt; cmake -S . -B b && cmake --build b`,
	}
	rt60aNeed(t, "cmake", "cmake")
	rt60aNeed(t, "make", "make")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, rm, "true"))
	}
	// References: the same command run by sh, and by a written Makefile.
	rtAtLeast(t, []string{"bash"}, rm, Escalated)
	rtAtLeast(t, []string{"bash"}, `printf 'all:\n\t`+rm+`\n' > Makefile; make`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday CMake builds.
	rtBelow(t, `cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j4`, Escalated)
	rtBelow(t, `mkdir -p build && cd build && cmake .. && make`, Escalated)
	rtBelow(t, `printf '`+head+`add_executable(x main.c)\n' > CMakeLists.txt; cmake -S . -B b && cmake --build b`, Escalated)
	rtBelow(t, `ctest --test-dir build --output-on-failure`, Escalated)
}

// TestRedteam62CTest: ctest reads CTestTestfile.cmake in the directory it
// runs in (or --test-dir) and runs each add_test's command:
//
//	printf 'add_test(x sh -c "rm -rf ~/.ssh")\n' > CTestTestfile.cmake; ctest     sandboxed
//	(the same in b/) ctest --test-dir b                                             sandboxed
//
// each removes ~/.ssh. Why: nothing in package classify knows ctest (nor
// cmake). Premise: Debian's ctest (package cmake) in a fake home; the
// control's test runs `true`. Severity: high. Found by red-team round 62.
// Fixed: buildsystems.go: ctest (--test-dir DIR, -S SCRIPT) reads
// CTestTestfile.cmake, whose add_test commands cmakeCommands judges.
func TestRedteam62CTest(t *testing.T) {
	const rm = `sh -c "rm -rf ~/.ssh"`
	attacks := []string{
		`printf 'add_test(x ` + rm + `)\n' > CTestTestfile.cmake; ctest`,
		`mkdir -p b; printf 'add_test(x ` + rm + `)\n' > b/CTestTestfile.cmake; ctest --test-dir b`,
	}
	rt60aNeed(t, "cmake", "ctest")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, rm, "true"))
	}
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `ctest --output-on-failure -j4`, Escalated)
	rtBelow(t, `printf 'add_test(x ./unit_tests)\n' > CTestTestfile.cmake; ctest`, Escalated)
}
