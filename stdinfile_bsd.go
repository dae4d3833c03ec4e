//go:build unix && !linux

package agentbox

import (
	"errors"
	"os"
)

// pipeQueued: no sandbox runs here (see MaybeSandboxInit); the caller's
// offset is left where the program started.
func pipeQueued(int) (int, error) { return 0, errors.ErrUnsupported }

// kcmpFile: no kcmp here.
func kcmpFile(int, int) (bool, bool) { return false, false }

// newStdinPipe: no tee(2) here, and no sandbox runs here either; the pipe
// is relayed as a stream.
func newStdinPipe(f *os.File) (*stdinFile, *os.File, error) { return newStdinStream(f) }

func (*stdinFile) wakeUp()   {}
func (*stdinFile) giveBack() {}
