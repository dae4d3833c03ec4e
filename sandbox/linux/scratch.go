//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// overlays mounts the plan's scratch overlays, one per opOverlay. Their
// private upper layers live in layers, a directory of the memory areas'
// tmpfs (see MemoryAreas), which the command never sees (each overlay
// keeps its own reference to it once the scratch root is detached).
type overlays struct {
	layers string
	n      int
	made   []string
	failed []string
}

// mount lays a writable overlay over dst (a path in the new root): the
// directory as it is below, a fresh directory of the layers above.
func (o *overlays) mount(dst string) error {
	dstFD, err := openNoSymlinks(dst)
	if err != nil {
		return err
	}
	defer unix.Close(dstFD)
	var st unix.Stat_t
	if err := unix.Fstat(dstFD, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("%s is not a directory", dst)
	}
	dir := filepath.Join(o.layers, strconv.Itoa(o.n))
	o.n++
	upper, work := dir+"/upper", dir+"/work"
	for _, d := range []string{dir, upper, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	// The overlay's root takes the upper directory's owner and mode: the
	// command must find the directory it could write before (and no more).
	if err := os.Lchown(upper, int(st.Uid), int(st.Gid)); errors.Is(err, unix.EINVAL) {
		return errors.New("its owner is not the sandbox's user (a sandbox that root starts runs as nobody, and only the home is shown as its own)")
	} else if err != nil {
		return fmt.Errorf("owner of the private layer: %w", err)
	}
	if err := os.Chmod(upper, os.FileMode(st.Mode&0o777)); err != nil {
		return err
	}
	// The lower layer is named through the descriptor, so a directory
	// swapped for a link since it was opened cannot redirect it; /proc is
	// the sandbox's own by now.
	lower := fmt.Sprintf("%s/proc/self/fd/%d", newRoot, dstFD)
	opts := "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work + ",userxattr"
	if err := unix.Mount("overlay", lower, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	return nil
}

// fail records that the overlay over dst (a sandbox path) could not be
// made: the directory stays read-only, as the rest of the host, and
// Landlock must treat it so too: no write rights, and the deny paths
// inside it denied again.
func (o *overlays) fail(s *initSpec, dst string, err error) {
	o.failed = append(o.failed, fmt.Sprintf("%s: %v", dst, err))
	s.Landlock.WriteRoots = slices.DeleteFunc(s.Landlock.WriteRoots, func(w string) bool { return w == dst })
	for _, op := range s.Mounts {
		switch op.Kind {
		case opMaskDir, opMaskFile, opMaskAuto:
			if paths.Within(op.Dst, dst) {
				s.Landlock.DenyRead = append(s.Landlock.DenyRead, op.Dst)
			}
		}
	}
}

// layer describes the scratch directories for ExecResult.Layers; empty
// when the plan has none.
func (o *overlays) layer() string {
	var parts []string
	if len(o.made) > 0 {
		parts = append(parts, strings.Join(o.made, " ")+": writable, changes discarded")
	}
	if len(o.failed) > 0 {
		parts = append(parts, "UNAVAILABLE, read-only: "+strings.Join(o.failed, "; "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "scratch(" + strings.Join(parts, "; ") + ")"
}
