//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRedteam15ReducedTierOtherTerminals attacks the user's other
// terminals from the reduced tier. Landlock grants read, write and ioctl
// on /dev/pts (devicePaths), meant for the sandbox's own devpts; without a
// mount namespace that is the host's devpts, where every terminal of the
// user (mode 0620, owned by the user) is open to the command: it can read
// what the user types in another terminal (a sudo password) before the
// shell there does. The host's terminal here is a pty the test opens,
// with a line typed into it and not yet read; the control is the
// sandbox's own stdout.
//
// Fixed: the reduced tier's Landlock carves /dev/pts out of what may be
// read and grants no device rights there (buildReducedPlan); the
// command's own terminal is inherited open, and /dev/tty opens it.
func TestRedteam15ReducedTierOtherTerminals(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave := fmt.Sprintf("/dev/pts/%d", n)
	// A program (the user's shell) has the terminal open.
	s, err := os.OpenFile(slave, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	typed := uniqueSecret("typed")
	if _, err := master.WriteString(typed + "\n"); err != nil {
		t.Fatal(err)
	}
	ps := []probe{
		control("own_stdout", "ttywrite:1", ""),
		attack("read_other_terminal", "ptysteal:"+slave),
	}
	refused, res := runInChild(t, "no-capabilities", false, newDir(t, 0o755), ps)
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("attacker output:\n%s", res.Stdout)
	checkProbes(t, o, ps)
	if r := o.results["read_other_terminal"]; strings.Contains(r.detail, typed) {
		t.Errorf("ESCAPE: the sandbox read what was typed in the user's terminal %s: %s", slave, r.detail)
	}
}
