//go:build linux

package attack_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// dataLimitScript reads the program's RLIMIT_DATA once the init has set
// its hard limit (it may start with the init's, see inheritDataLimit),
// then tries to lower it.
const dataLimitScript = `import resource, time
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

// checkDataLimitFixed checks dataLimitScript's output: the limit read as
// limit, and setting it refused (Python answers EPERM with a ValueError).
func checkDataLimitFixed(t *testing.T, res *agentbox.ExecResult, limit int64) {
	t.Helper()
	if want := fmt.Sprintf("data %d %d", limit, limit); !strings.Contains(res.Stdout, want) {
		t.Errorf("want %q: %q %q", want, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "set refused") {
		t.Errorf("setting RLIMIT_DATA was not refused with EPERM: %q %q", res.Stdout, res.Stderr)
	}
}

// TestDataLimitFixed checks that a program under a memory limit reads its
// RLIMIT_DATA but may not set it: the program starts with the init's hard
// limit (inheritDataLimit) until the init lowers it, and a child it forked
// at once could otherwise raise its soft limit back to that
// (TestRedteam33EarlyForkEscapesMemoryLimit). The full tier here, where
// no memory cgroup holds the limit (then RLIMIT_DATA is not set); the
// reduced one in TestReducedTierDataLimitFixed.
func TestDataLimitFixed(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	t.Parallel()
	res := runShell(t, "exec python3 -c '"+dataLimitScript+"'")
	if slices.ContainsFunc(res.Layers, func(l string) bool { return strings.HasPrefix(l, "cgroup(") && strings.Contains(l, "memory") }) {
		t.Skip("the memory limit is a cgroup's here, not RLIMIT_DATA")
	}
	checkDataLimitFixed(t, res, ciConfig().ResourceLimits.MaxMemoryBytes)
}

// TestReducedTierDataLimitFixed is TestDataLimitFixed in the reduced tier.
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
	refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o755), py, []string{"-c", dataLimitScript},
		reducedMemEnv+"="+strconv.Itoa(limit))
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	checkDataLimitFixed(t, res, limit)
}
