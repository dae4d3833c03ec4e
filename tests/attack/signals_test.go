//go:build linux

package attack_test

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// inheritedSignals are the signals the sandbox's init keeps away from
// itself (a closed pipe, a background read or write on a terminal) and
// that a program must nevertheless start with at their default action.
var inheritedSignals = []syscall.Signal{syscall.SIGPIPE, syscall.SIGTTIN, syscall.SIGTTOU}

// checkSigIgn fails the test for every inheritedSignals member set in the
// SigIgn line of status, a /proc/PID/status a sandboxed program printed.
func checkSigIgn(t *testing.T, where, status string) {
	t.Helper()
	for _, line := range strings.Split(status, "\n") {
		hex, ok := strings.CutPrefix(line, "SigIgn:")
		if !ok {
			continue
		}
		ign, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range inheritedSignals {
			if ign&(1<<(s-1)) != 0 {
				t.Errorf("%s: a sandboxed program starts with signal %d (%v) ignored (SigIgn %s)", where, s, s, strings.TrimSpace(hex))
			}
		}
		return
	}
	t.Errorf("%s: no SigIgn line in the program's status:\n%s", where, status)
}

// TestSignalsNotIgnored: the init of a sandbox ignores no signal on the
// program's behalf. An ignored SIGPIPE survives exec: yes | head -1 would
// end with "yes: standard output: Broken pipe" inside the sandbox where it
// is silent outside.
func TestSignalsNotIgnored(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := ciMgr.ExecArgs(ctx, "/bin/cat", []string{"/proc/self/status"}, agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !res.Sandboxed {
		t.Fatalf("cat /proc/self/status: exit %d, sandboxed %v, stderr %q", res.ExitCode, res.Sandboxed, res.Stderr)
	}
	checkSigIgn(t, "full sandbox", res.Stdout)

	res, err = ciMgr.ExecArgs(ctx, "/bin/sh", []string{"-c", "yes | head -1"}, agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "y\n" || res.Stderr != "" || res.ExitCode != 0 {
		t.Errorf("yes | head -1 in the sandbox: exit %d, stdout %q, stderr %q; want exit 0, \"y\\n\" and nothing on stderr",
			res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestReducedTierSignalsNotIgnored is TestSignalsNotIgnored for the
// reduced tier, whose init is the same program in the host's namespaces.
func TestReducedTierSignalsNotIgnored(t *testing.T) {
	t.Parallel()
	if isRoot {
		t.Skip("the reduced tier refuses a root caller (see TestReducedTier)")
	}
	refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o777), "/bin/cat", []string{"/proc/self/status"})
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	if res.ExitCode != 0 || !strings.Contains(strings.Join(res.Layers, "\n"), "reduced tier") {
		t.Fatalf("cat /proc/self/status: exit %d, layers %q, stderr %q; want the reduced tier", res.ExitCode, res.Layers, res.Stderr)
	}
	checkSigIgn(t, "reduced tier", res.Stdout)
}
