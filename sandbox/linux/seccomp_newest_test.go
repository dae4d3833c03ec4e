//go:build linux

package linux

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// seccompProbeEnv makes the test binary a child that loads the filter, its
// newest judged syscall set to the env's first number, and reports the
// errno of the syscall numbered by the second (called with zero arguments).
const seccompProbeEnv = "AGENTBOX_TEST_SECCOMP_PROBE"

func runSeccompProbe() int {
	runtime.LockOSThread() // the filter binds this thread, which makes the call
	var newest, nr uint32
	if _, err := fmt.Sscanf(os.Getenv(seccompProbeEnv), "%d %d", &newest, &nr); err != nil {
		fmt.Print("probe: ", err)
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Print("no_new_privs: ", err)
		return 2
	}
	filter, err := buildSeccompUpTo(seccompOptions{}, newest)
	if err == nil {
		err = loadSeccomp(filter)
	}
	if err != nil {
		fmt.Print("seccomp: ", err)
		return 2
	}
	_, _, errno := unix.RawSyscall(uintptr(nr), 0, 0, 0)
	fmt.Print(int(errno))
	return 0
}

// TestSeccompAnswersNewerSyscalls checks, in the kernel, that the filter
// answers ENOSYS above the newest syscall it judges. This kernel has no
// syscall above the real bound, so the probe lowers it below mseal(2)
// (mseal of nothing succeeds) and checks the call is then refused, and
// that under the real bound it still succeeds.
func TestSeccompAnswersNewerSyscalls(t *testing.T) {
	if _, _, errno := unix.RawSyscall(unix.SYS_MSEAL, 0, 0, 0); errno != 0 {
		t.Skipf("mseal(0, 0, 0) on the host: %v", errno)
	}
	probe := func(newest uint32) unix.Errno {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d", seccompProbeEnv, newest, unix.SYS_MSEAL))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("probe (newest %d): %v: %s", newest, err, out)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("probe (newest %d) said %q", newest, out)
		}
		return unix.Errno(n)
	}
	if errno := probe(newestSyscall); errno != 0 {
		t.Fatalf("control: mseal under the real filter: %v, want success", errno)
	}
	if errno := probe(unix.SYS_MSEAL - 1); errno != unix.ENOSYS {
		t.Fatalf("mseal above a lowered newest syscall: %v, want ENOSYS", errno)
	}
}
