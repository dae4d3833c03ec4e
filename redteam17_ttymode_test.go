//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// Red-team session 17: the user's terminal as the command's standard
// streams (agentbox exec without --tty, Start with a terminal's files).
// The terminal device belongs to the user the sandbox runs as, and the
// descriptor is of the host's /dev/pts, not the sandbox's read-only
// mounts: fchmod on it makes the user's terminal readable and writable by
// every local user (whose programs may then read what the user types and
// write escape sequences to it), and the change outlives the command, as
// agentbox restores a shared terminal's modes and flags but not its
// permissions.
//
// The attack must fail: after Wait the terminal's permissions are what
// they were. The control: the command reads its terminal's settings (stty).
//
// Fixed: the terminal's permissions and owner are recorded with its other
// state and put back after the run (sharedFile); while the program runs
// the change stands (README's known limits).
func TestRedteam17SharedTerminalPermissions(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	_, slave := ptytest.Open(t)
	if os.Geteuid() == 0 {
		// Root's sandboxes run as nobody: the terminal is theirs as a
		// user's is to the user's sandboxes.
		if err := slave.Chown(65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := slave.Chmod(0o600); err != nil {
		t.Fatal(err)
	}
	before, err := slave.Stat()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `stty -g >/dev/null && echo CONTROL-OK >&2 && exec python3 -c 'import os; os.fchmod(0, 0o666)'`)
	cmd.Stdin, cmd.Stdout = slave, slave
	errf, err := os.CreateTemp(hostDir(t), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	cmd.Stderr = errf
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(errf.Name()); string(b) != "CONTROL-OK\n" || res.ExitCode != 0 {
		t.Fatalf("control: exit %d, stderr %q", res.ExitCode, b)
	}
	after, err := slave.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode().Perm() != before.Mode().Perm() {
		t.Errorf("the command left the user's terminal with permissions %v (were %v)", after.Mode().Perm(), before.Mode().Perm())
	}
}
