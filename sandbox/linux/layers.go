//go:build linux

package linux

import "strings"

// Names of the isolation layers reported in ExecResult.Layers and by
// agentbox doctor.
const (
	LayerNamespaces  = "namespaces(user,mount,pid,ipc,uts,cgroup)"
	LayerPivotRoot   = "pivot_root(read-only root, masked deny paths, private /tmp /dev /proc)"
	LayerNetBlocked  = "netns(blocked: loopback only)"
	LayerNetFiltered = "netns(filtered: egress proxy only)"
	LayerNetHost     = "network(host: allowed)"
	LayerSeccomp     = "seccomp"
	LayerNoNewPrivs  = "no_new_privs"
	LayerCapsDropped = "capabilities(none)"
	LayerRlimits     = "rlimits"
	// LayerReduced marks the reduced tier: no namespaces, Landlock and
	// seccomp only.
	LayerReduced = "reduced tier (no namespaces)"
	// LayerNoLandlock marks a run without Landlock (the warn fallback on a
	// kernel that has none).
	LayerNoLandlock = "landlock(UNAVAILABLE: the kernel offers none; warn fallback)"
	// LayerTimedWatch starts the layer of a mount watch that looks on a
	// timer, without inotify (see mountWatch.timedLayer).
	LayerTimedWatch = "mount watch(TIMED"
)

// degradedLayers picks the layers that say the policy was not fully
// enforced: the warn fallback ran without something it needs.
func degradedLayers(layers []string) []string {
	var out []string
	for _, l := range layers {
		if strings.HasPrefix(l, LayerReduced) || l == LayerNoLandlock || strings.HasPrefix(l, LayerTimedWatch) {
			out = append(out, l)
		}
	}
	return out
}
