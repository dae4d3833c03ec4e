package vault

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashHelperEnv makes TestCrashHelper, in a child process, crash with a
// core dump: "plain" as it is, "limited" after LimitCoreDumps.
const crashHelperEnv = "AGENTBOX_VAULT_CRASH_HELPER"

// TestCoreDumpRefused crashes a process that called LimitCoreDumps with
// its soft core limit raised back to the hard one, as a core_pattern that
// pipes dumps to a handler (systemd-coredump, apport) would disregard the
// limit: no core may be written. The control, a process that did not call
// it, does leave a core, so the check can see one.
func TestCoreDumpRefused(t *testing.T) {
	pattern, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Skipf("core_pattern: %v", err)
	}
	if p := strings.TrimSpace(string(pattern)); !strings.HasPrefix(p, "core") || strings.Contains(p, "/") {
		t.Skipf("core_pattern %q: cores do not land in the working directory here", p)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil || rl.Max < 64<<20 {
		t.Skipf("hard core limit %d: no process can dump a whole core here", rl.Max)
	}
	for _, mode := range []string{"plain", "limited"} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+mode, "GOTRACEBACK=crash")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGABRT {
			t.Fatalf("%s: the helper did not abort: %v\n%s", mode, err, tail(out))
		}
		cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
		switch {
		case mode == "plain" && len(cores) == 0:
			t.Fatalf("control: a crash without LimitCoreDumps left no core in %s, so this check cannot see one", dir)
		case mode == "limited" && len(cores) > 0:
			t.Errorf("a process that called LimitCoreDumps dumped core: %v", cores)
		}
	}
}

// TestCrashHelper is the crashing child of TestCoreDumpRefused.
func TestCrashHelper(t *testing.T) {
	mode := os.Getenv(crashHelperEnv)
	if mode == "" {
		t.Skip("runs only as TestCoreDumpRefused's child")
	}
	if mode == "limited" {
		if err := LimitCoreDumps(); err != nil {
			t.Fatal(err)
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = rl.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGABRT) // GOTRACEBACK=crash: the runtime aborts with a core
	time.Sleep(10 * time.Second)
	t.Fatal("still alive after SIGABRT")
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
