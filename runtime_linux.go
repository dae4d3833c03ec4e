package agentbox

import (
	"github.com/agentbox-dev/agentbox/sandbox"
	"github.com/agentbox-dev/agentbox/sandbox/linux"
)

func nativeRuntime(cfg Config) (sandbox.Runtime, error) {
	return &linux.Runtime{ColdStart: cfg.ColdStart}, nil
}

// MaybeSandboxInit turns the current process into a sandbox's init when
// agentbox re-executed it as one, and never returns in that case. Programs
// that embed agentbox should call it first thing in main. (Linking agentbox
// already arranges this from a package init function; the explicit call
// documents it and runs before any of the program's own init work.)
func MaybeSandboxInit() { linux.MaybeInit() }

func probe() []Capability { return linux.Probe() }

// MemoryMechanism names how sandboxes' memory limits are enforced on this
// machine: "cgroup v2", "cgroup v1" (a limit on the whole process tree) or
// "rlimit" (RLIMIT_DATA on each process).
func MemoryMechanism() string { return linux.MemoryMechanism() }
