//go:build linux

package attack_test

import (
	"os"
	"strings"
	"testing"
)

// TestRedteam16OwnLimitsAndKernelKnobs tries to reach the cgroup
// filesystem that holds the sandbox's own limits (to raise memory or pids
// limits, move its processes to a parent or sibling cgroup, make child
// cgroups that escape accounting, or kill and freeze others), through
// /sys and through the init's and its own /proc/PID/root, and to write
// the per-process and machine-wide /proc files a full sandbox's root
// could otherwise reach: pressure-stall triggers (kernel work the host
// pays for), its user namespace's project-ID map, and its own process
// limits file. Controls read the sandbox's own cgroup membership and the
// machine's load, which every sandbox may read.
func TestRedteam16OwnLimitsAndKernelKnobs(t *testing.T) {
	t.Parallel()
	ps := []probe{
		control("own_cgroup", "read:/proc/self/cgroup", "::/"),
		control("loadavg", "read:/proc/loadavg", "/"),
	}
	for _, root := range []string{"", "/proc/self/root", "/proc/1/root"} {
		for label, spec := range map[string]string{
			"cgroupfs_list":        "readdir:" + root + "/sys/fs/cgroup",
			"cgroup2_procs":        "openw:" + root + "/sys/fs/cgroup/unified/cgroup.procs",
			"cgroup2_subtree":      "openw:" + root + "/sys/fs/cgroup/unified/cgroup.subtree_control",
			"cgroup2_memory_max":   "openw:" + root + "/sys/fs/cgroup/memory.max",
			"cgroup1_memory_limit": "openw:" + root + "/sys/fs/cgroup/memory/memory.limit_in_bytes",
			"cgroup1_memory_procs": "openw:" + root + "/sys/fs/cgroup/memory/cgroup.procs",
			"cgroup1_pids_max":     "openw:" + root + "/sys/fs/cgroup/pids/pids.max",
			"cgroup_child":         "mkdir:" + root + "/sys/fs/cgroup/memory/escape",
		} {
			name := label
			if root != "" {
				name = label + "_via" + root
			}
			ps = append(ps, attack(name, spec))
		}
	}
	for label, spec := range map[string]string{
		"psi_trigger_memory": "procwrite:/proc/pressure/memory|some 150000 2000000",
		"psi_trigger_cpu":    "procwrite:/proc/pressure/cpu|some 150000 2000000",
		"projid_map":         "procwrite:/proc/self/projid_map|0 0 1",
		"uid_map_again":      "procwrite:/proc/self/uid_map|0 0 1",
		"setgroups_deny":     "procwrite:/proc/self/setgroups|deny",
		"own_limits":         "procwrite:/proc/self/limits|Max processes 99999 99999",
		"sysctl_user_ns":     "procwrite:/proc/sys/user/max_inotify_instances|100000",
		"sysctl_ns_last_pid": "procwrite:/proc/sys/kernel/ns_last_pid|1",
	} {
		if _, err := os.Stat(pathOf(spec)); err != nil {
			continue // not on this kernel
		}
		ps = append(ps, attack(label, spec))
	}
	runProbes(t, ciMgr, ps)
}

// pathOf returns the path of a "procwrite:PATH|VALUE" spec.
func pathOf(spec string) string {
	p, _, _ := strings.Cut(strings.TrimPrefix(spec, "procwrite:"), "|")
	return p
}
