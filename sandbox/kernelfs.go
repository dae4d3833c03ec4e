package sandbox

import (
	"fmt"
	"strings"
)

// kernelFilesystems are where a writable root cannot be: every sandbox
// mounts its own /proc and a minimal /dev, and never shows /sys.
var kernelFilesystems = []string{"/proc", "/sys", "/dev"}

// KernelFilesystem reports the kernel filesystem that the clean absolute
// path p lies in, if any: such a path cannot be a writable root. /dev/shm,
// an ordinary tmpfs that every sandbox replaces with a private one, is not
// one of them.
func KernelFilesystem(p string) (string, bool) {
	if p == "/dev/shm" || strings.HasPrefix(p, "/dev/shm/") {
		return "", false
	}
	for _, k := range kernelFilesystems {
		if p == k || strings.HasPrefix(p, k+"/") {
			return k, true
		}
	}
	return "", false
}

// KernelFilesystemError says, in one line, why the path named as p (which
// resolved to path, in kernel filesystem k) cannot be writable, and what to
// do.
func KernelFilesystemError(p, path, k string) string {
	where := fmt.Sprintf("%s is inside %s,", p, k)
	if path == k {
		where = p + " is"
	}
	return where + " a kernel filesystem, which cannot be writable (every sandbox has its own /proc and /dev, and no /sys); remove it"
}
