//go:build unix

package dirlist

import (
	"os"
	"syscall"
)

// openDir opens the directory p to list it, refusing anything else
// without blocking: a FIFO a command left where a directory was expected
// would hold an open for reading until a writer came (red-team round 58).
func openDir(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}
