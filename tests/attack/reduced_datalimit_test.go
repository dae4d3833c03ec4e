//go:build linux

package attack_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestReducedTierDataLimitFixed checks that a program under a memory limit
// reads its RLIMIT_DATA but may not set it: the program starts with the
// init's hard limit (inheritDataLimit) until the init lowers it, and a child
// it forked at once could otherwise raise its soft limit back to that
// (TestRedteam33EarlyForkEscapesMemoryLimit).
func TestReducedTierDataLimitFixed(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	t.Parallel()
	const limit = 64 << 20
	// The program may start before the init set its hard limit (it has
	// the init's then, see inheritDataLimit): wait for it.
	script := `import resource, time
for i in range(500):
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        break
    time.sleep(0.01)
print("data", soft, hard)
try:
    resource.setrlimit(resource.RLIMIT_DATA, (soft // 2, hard))
    print("lowered")
except ValueError:
    print("set refused")
`
	refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o755), py, []string{"-c", script},
		reducedMemEnv+"="+strconv.Itoa(limit))
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	out := res.Stdout
	if want := "data " + strconv.Itoa(limit) + " " + strconv.Itoa(limit); !strings.Contains(out, want) {
		t.Errorf("want %q: %q %q", want, out, res.Stderr)
	}
	// Python answers EPERM from setrlimit with a ValueError.
	if !strings.Contains(out, "set refused") {
		t.Errorf("setting RLIMIT_DATA was not refused with EPERM: %q %q", out, res.Stderr)
	}
}
