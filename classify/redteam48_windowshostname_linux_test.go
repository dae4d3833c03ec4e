package classify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRedteam48WindowsListHostname: common-safe-commands allows hostname
// only without operands (rules_allow.go: matchCommonSafe, case "hostname"),
// since `hostname NAME` sets the system's host name. But hostname is also
// on the Windows list (rules_allow.go: windowsSafe), and matchWindowsSafe
// checks only ipconfig, wmic and path: `hostname NAME` is judged allow
// (windows-safe-commands) on every system. The same list holds tree with
// no -o check (`tree -o FILE` writes FILE; tree is not installed here, so
// that form is not asserted).
//
// The premise runs hostname in a new UTS namespace (unshare -u, never the
// host's name) and reads the name back.
//
// Severity: low (a system setting changed, judged allow).
// Found by red-team round 48 (low). Fixed: a name both allow lists hold
// (hostname, tree, more, …) is judged by the POSIX list's checks only.
func TestRedteam48WindowsListHostname(t *testing.T) {
	if !rtHave(t, "hostname", "unshare") {
		t.Skip("hostname or unshare missing")
	}
	out, err := exec.Command("unshare", "-u", "sh", "-c", "hostname rt48b-name && hostname").CombinedOutput()
	if err != nil {
		out, err = exec.Command("unshare", "-Ur", "-u", "sh", "-c", "hostname rt48b-name && hostname").CombinedOutput()
	}
	if err != nil {
		t.Skipf("no UTS namespace here: %v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "rt48b-name" {
		t.Fatalf("premise: hostname NAME did not set the name: %s", out)
	}
	rtAtLeast(t, []string{"bash", "dash"}, "hostname build-host", Sandboxed)
	rtAtLeast(t, []string{"bash"}, "hostname -b build-host", Sandboxed)
	// Control: reading the name stays allow.
	for _, l := range []string{"hostname", "hostname -f", "hostname -I"} {
		rtBelow(t, l, Sandboxed)
	}
}
