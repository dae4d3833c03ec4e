//go:build linux

package linux

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
)
