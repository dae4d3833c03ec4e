//go:build !linux

package agentbox

import "github.com/agentbox-dev/agentbox/sandbox"

func nativeRuntime() (sandbox.Runtime, error) { return nil, ErrUnsupportedPlatform }

// MaybeSandboxInit does nothing on this platform.
func MaybeSandboxInit() {}
