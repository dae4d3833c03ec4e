//go:build unix && !linux

package agentbox

import "errors"

// pipeQueued: no sandbox runs here (see MaybeSandboxInit); the caller's
// offset is left where the program started.
func pipeQueued(int) (int, error) { return 0, errors.ErrUnsupported }

// kcmpFile: no kcmp here.
func kcmpFile(int, int) (bool, bool) { return false, false }
