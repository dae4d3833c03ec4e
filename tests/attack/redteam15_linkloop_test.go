//go:build linux

package attack_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam15ProtectedLinkLoopPlanted: a command creates a name that is
// protected only where it exists (lefthook.yml, .mise.toml) as a symbolic
// link loop, or a chain of more links than the kernel follows. Every later
// command in that writable root must still run, with the names held (a
// loop leads nowhere, for the host's readers too): the plan must not turn
// the loop into a set-up failure, which would deny the writable root to
// every later sandbox until the user finds and removes the links.
func TestRedteam15ProtectedLinkLoopPlanted(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	first := []probe{
		control("plant_self_loop", "symlink:lefthook.yml|"+w+"/lefthook.yml", ""),
		control("plant_pair_a", "symlink:.mise.toml|"+w+"/.mise-b", ""),
		control("plant_pair_b", "symlink:.mise-b|"+w+"/.mise.toml", ""),
	}
	runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := ciMgr.ExecArgs(ctx, attackerBin, probeArgs([]probe{control("write_source", "write:"+w+"/main.go", "")}),
		agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(w))
	if err != nil {
		t.Fatalf("DENIAL: a link loop planted by an earlier command keeps every later sandbox on the writable root from starting: %v", err)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("second run incomplete (exit %d): %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
