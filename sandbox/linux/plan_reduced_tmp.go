//go:build linux

package linux

import (
	"os"

	"golang.org/x/sys/unix"
)

// memoryFilesystems are the filesystems whose files are memory: a file
// written there stays in RAM (or swap), counted by no limit the reduced
// tier sets (RLIMIT_DATA counts mappings, not files).
var memoryFilesystems = map[int64]bool{unix.TMPFS_MAGIC: true, unix.RAMFS_MAGIC: true}

// reducedTmpParents are the places tried, in order, for the reduced tier's
// private temporary directory under a memory limit: the host's temporary
// directory first (as without one), then the ones that are disk on the
// hosts whose /tmp is a tmpfs (Fedora, Arch, Debian 13).
func reducedTmpParents() []string {
	parents := []string{os.TempDir(), "/var/tmp"}
	if cache, err := os.UserCacheDir(); err == nil {
		parents = append(parents, cache)
	}
	return parents
}

// makeReducedTmp makes the reduced tier's private temporary directory
// (0700, as os.MkdirTemp makes it). The full tier bounds its /tmp by the
// memory limit (a tmpfs of that size); the reduced tier cannot mount one,
// so under a limit (limited) it puts the directory on the first of parents
// that is not memory. Where every one is, it uses the first and says so
// in degraded: files there are memory no limit counts.
func makeReducedTmp(parents []string, limited bool) (dir, degraded string, err error) {
	if limited {
		for _, p := range parents {
			if isMemoryFS(p) {
				continue
			}
			if dir, err := os.MkdirTemp(p, "agentbox-tmp-"); err == nil {
				return dir, "", nil
			}
		}
		degraded = "the private TMPDIR is on a tmpfs (no disk-backed temporary directory found): files written there are memory no limit counts"
	}
	dir, err = os.MkdirTemp(parents[0], "agentbox-tmp-")
	return dir, degraded, err
}

// isMemoryFS says whether path is on a filesystem held in memory. A path
// that cannot be examined counts as memory: it is not a place to use.
func isMemoryFS(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return true
	}
	return memoryFilesystems[int64(st.Type)]
}
