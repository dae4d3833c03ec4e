//go:build linux

package linux

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ownerperm"
)

// removeOwnedTree removes dir, the reduced tier's private temporary
// directory, and everything in it. The program ran as the caller there,
// so it owns every directory below and may have taken their owner's
// permissions off (chmod 0 on one makes os.RemoveAll give up on it, and
// the directory and all the program wrote would stay in the host's
// temporary directory): where removing fails for want of permission,
// every directory below dir is given back its owner's read, write and
// search permission, each opened beneath dir without following a link,
// and removing is tried again.
func removeOwnedTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	root, oerr := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err
	}
	defer unix.Close(root)
	for queue := []string{"."}; len(queue) > 0; {
		rel := queue[0]
		queue = queue[1:]
		fd, err := unix.Openat2(root, rel, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != nil {
			continue
		}
		_ = ownerperm.Give(fd, 0o700)
		lfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			continue
		}
		f := os.NewFile(uintptr(lfd), rel)
		entries, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			if e.IsDir() {
				queue = append(queue, filepath.Join(rel, e.Name()))
			}
		}
	}
	return os.RemoveAll(dir)
}
