//go:build linux

package linux

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// TestMain gives the package's tests a state directory of their own: the
// placeholder journal they check would otherwise be shared with the
// agentbox processes of other packages' tests.
func TestMain(m *testing.M) {
	if os.Getenv(lateMountEnv) != "" {
		os.Exit(runLateMount())
	}
	if os.Getenv(seccompProbeEnv) != "" {
		os.Exit(runSeccompProbe())
	}
	dir, err := os.MkdirTemp("", "agentbox-linux-test-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(paths.EnvStateDir, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
