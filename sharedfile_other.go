//go:build !linux

package agentbox

import "os"

// sharedFiles: no sandbox runs here (see MaybeSandboxInit), so there is
// nothing to restore.
type sharedFiles []struct{}

func (*sharedFiles) add(*os.File)             {}
func (*sharedFiles) restore() (_, _ []string) { return nil, nil }
