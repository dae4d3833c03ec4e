//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestRedteam36ReducedTierHostProcWrites attacks, from the reduced tier
// (no pid namespace: the host's /proc), the per-process /proc files of a
// host process of the same user that the kernel guards by file mode alone,
// with no ptrace check Landlock's scoping would catch: raising its OOM
// score (the OOM killer's next victim), clearing its page reference and
// soft-dirty bits (clear_refs: CRIU and working-set tools read them),
// widening what its core dump holds (coredump_filter), renicing its
// session's autogroup and resetting its scheduler statistics. Each write
// must fail and the victim's files must be unchanged afterwards; the
// controls write in the writable root and read the victim's world-readable
// status, which the README documents as readable there. This covers
// something new: no earlier test wrote a host process's /proc files from
// the reduced tier (it held when written).
func TestRedteam36ReducedTierHostProcWrites(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	t.Parallel()
	pid, _ := startVictim(t)
	p := func(f string) string { return fmt.Sprintf("/proc/%d/%s", pid, f) }
	files := []string{"oom_score_adj", "coredump_filter", "autogroup"}
	before := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(p(f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = string(b)
	}
	w := newDir(t, 0o777)
	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		control("host_status", "read:"+p("status"), "Pid:"),
		attack("host_oom_raise", "procwrite:"+p("oom_score_adj")+"|1000"),
		attack("host_oom_adj_legacy", "procwrite:"+p("oom_adj")+"|15"),
		attack("host_clear_refs", "procwrite:"+p("clear_refs")+"|1"),
		attack("host_clear_softdirty", "procwrite:"+p("clear_refs")+"|4"),
		attack("host_coredump_filter", "procwrite:"+p("coredump_filter")+"|0x1ff"),
		attack("host_autogroup_nice", "procwrite:"+p("autogroup")+"|19"),
		attack("host_sched_reset", "procwrite:"+p("sched")+"|0"),
		attack("host_comm", "procwrite:"+p("comm")+"|pwned"),
	}
	refused, res := runInChild(t, "no-capabilities", false, w, ps)
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if len(res.Degraded) == 0 || !strings.Contains(res.Degraded[0], "reduced tier") {
		t.Fatalf("not the reduced tier: Degraded %q", res.Degraded)
	}
	t.Logf("attacker output:\n%s", res.Stdout)
	checkProbes(t, o, ps)
	for _, f := range files {
		b, err := os.ReadFile(p(f))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != before[f] {
			t.Errorf("ESCAPE: the reduced tier changed host process %d's %s: %q -> %q", pid, f, strings.TrimSpace(before[f]), strings.TrimSpace(string(b)))
		}
	}
}
