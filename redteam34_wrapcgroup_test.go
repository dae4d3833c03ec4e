//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt34Hog starts four processes that each hold and touch 80 MiB, report
// it, hold it for a while and report that they kept it: 320 MiB in all,
// over a 128 MiB limit. Only "kept" counts: a process that reported
// "held" may be the one the OOM killer ends next, for another's sake.
const rt34Hog = `for i in 1 2 3 4; do /usr/bin/python3 -c "
import time
b = bytearray(80 << 20)
for j in range(0, len(b), 4096): b[j] = 1
print(\"held\", flush=True)
time.sleep(2)
print(\"kept\", flush=True)
" & done; wait`

// TestRedteam34WrapNoCgroupV1: as root on a cgroup v1 machine, a command
// run through Manager.Wrap (Runtime.Prepare) gets no cgroup at all
// (cgroupForClone only knows v2's CLONE_INTO_CGROUP; commit 34ed05e gave
// Start's inits the v1 tasks-file join, but not Prepare's), so
// MaxMemoryBytes and MaxProcesses fall back to per-process rlimits: a tree
// of N processes holds N times the memory limit. The attack: four
// processes hold 80 MiB each (320 MiB) under a 128 MiB limit; all four
// report they hold it. The control: the same script through Manager.Exec,
// whose program joins the sandbox's memory cgroup, cannot (the OOM killer
// ends some). README says a memory limit bounds the tree "as a whole"
// where a cgroup is available, and root on v1 has one; only an
// unprivileged user without delegation is documented as per-process.
//
// Severity: medium (a resource limit, not isolation, escapes: a Wrap'd
// command may exhaust the host's memory as root). Fix: on cgroup v1, have
// Prepare's cold init join the sandbox's cgroup by the tasks files too
// (h.joinTasks with a new sandboxCgroup, sent with the spec), and test
// Wrap's limits on v1.
//
// Fixed: handle.cgroupForClone now gives Prepare's init the sandbox's v1
// cgroup too (limits set, h.joinTasks), so the program's thread joins it
// by the tasks files sendSpec sends, as Start's does, and refuses to run
// the program if it cannot (TestPrepareCgroupV1ThreadJoins,
// TestPrepareCgroupV1JoinFailureRefuses in sandbox/linux).
func TestRedteam34WrapNoCgroupV1(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("cgroup v1 is used for root only")
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err != nil {
		t.Skip("no cgroup v1 memory hierarchy")
	}
	cfg := agentbox.DefaultConfig()
	cfg.Network.Mode = agentbox.NetworkBlocked
	cfg.ResourceLimits.MaxMemoryBytes = 128 << 20
	cfg.ResourceLimits.MaxProcesses = 64
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Control: Exec, whose program joins the memory cgroup.
	res, err := m.Exec(ctx, rt34Hog, agentbox.WithTimeout(15*time.Second))
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	execHeld := strings.Count(res.Stdout, "kept")
	t.Logf("exec: %d of 4 kept 80 MiB; layers %v", execHeld, res.Layers)
	if execHeld == 4 {
		t.Fatalf("control failed: Exec's tree held 320 MiB under a 128 MiB limit")
	}

	// Attack: the same tree through Wrap.
	cmd := exec.Command("/bin/sh", "-c", rt34Hog)
	var out bytes.Buffer
	cmd.Stdout = &out
	cleanup, err := m.Wrap(ctx, cmd, agentbox.WithTimeout(15*time.Second))
	if err != nil {
		t.Fatalf("wrap: %v", err)
	}
	defer cleanup()
	_ = cmd.Run()
	held := strings.Count(out.String(), "kept")
	t.Logf("wrap: %d of 4 kept 80 MiB", held)
	if held*80 > 128 {
		t.Errorf("ESCAPE: through Wrap %d processes each held 80 MiB (%d MiB) under a 128 MiB memory limit: no cgroup on v1", held, held*80)
	}
}
