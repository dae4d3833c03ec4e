//go:build linux

package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// lookPath finds the program the way a shell in the working directory wd
// would, with the PATH of the program's own environment, in the sandbox's
// view of the filesystem. A relative name (./run.sh, bin/tool) and a
// relative PATH entry are relative to wd, where the program starts, not to
// the init's own directory. The result is absolute.
func lookPath(file, wd string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return p, checkExecutable(p)
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	var denied error
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir) // "" is the working directory too
		}
		p := filepath.Join(dir, file)
		if _, err := os.Stat(p); err != nil {
			continue // not here, or a directory we cannot search: as a shell does
		}
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if denied == nil {
			denied = err // found but not executable: 126 unless found elsewhere
		}
	}
	if denied != nil {
		return "", denied
	}
	return "", fmt.Errorf("%s: %w", file, unix.ENOENT)
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s: is a directory: %w", p, unix.EACCES)
	}
	if err := unix.Access(p, unix.X_OK); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}
