//go:build !linux

package agentbox

import "github.com/agentbox-dev/agentbox/sandbox"

func nativeRuntime(Config) (sandbox.Runtime, error) { return nil, ErrUnsupportedPlatform }

// MaybeSandboxInit does nothing on this platform.
func MaybeSandboxInit() {}

func probe() []Capability {
	return []Capability{{Name: "platform", Detail: "no native sandbox for this operating system yet", Required: true}}
}

// MemoryMechanism reports that no sandbox runs here.
func MemoryMechanism() string { return "none" }
