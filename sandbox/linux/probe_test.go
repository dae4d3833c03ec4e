//go:build linux

package linux

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// noMountEnv makes the test binary refuse mount(2) to itself and its
// children (a seccomp filter), then print probeUserns's verdict: a user
// namespace whose mounts fail, as under Ubuntu's AppArmor restriction.
const noMountEnv = "AGENTBOX_TEST_PROBE_NO_MOUNT"

func init() {
	if os.Getenv(noMountEnv) == "" || len(os.Args) > 0 && os.Args[0] == probeArg0 {
		return
	}
	if err := nomount.Install(); err != nil {
		println(err.Error())
		os.Exit(2)
	}
	c := probeUserns()
	if c.OK {
		println("OK", c.Detail)
	} else {
		println("UNAVAILABLE", c.Detail)
	}
	os.Exit(0)
}

// TestProbeUsernsWithoutCapabilities: namespaces that can be made but
// where a mount is refused are reported unavailable, with the reason, so
// that the strict fallback refuses and the warn fallback takes the reduced
// tier, instead of failing later at the sandbox's first mount.
func TestProbeUsernsWithoutCapabilities(t *testing.T) {
	if c := probeUserns(); !c.OK {
		t.Skipf("user namespaces are unavailable here anyway: %s", c.Detail)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), noMountEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := string(out)
	if !strings.HasPrefix(got, "UNAVAILABLE") || !strings.Contains(got, "grant no capability") {
		t.Errorf("probe without mounts: %q, want unavailable, naming the missing capability", got)
	}
}
