//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
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
	layers   string
	n        int
	made     []string
	failed   []string
	unsealed []string // host directories shown with FIFOs perhaps left unmasked (see seal)
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

// sealLimit bounds the entries seal looks at in one shown directory.
const sealLimit = 200000

// errSealLimit stops seal's walk of a directory with too many entries.
var errSealLimit = errors.New("more than 200000 entries to look through")

// seal masks every FIFO and socket below dst (a path in the new root), a
// host directory shown read-only in a private area, with an empty
// read-only file. The read-only bind does not stop a write to one (the
// kernel asks the mount only about regular files), and Landlock grants
// writing below the private /tmp whole, the shown directory included: a
// host program reading a FIFO there would get what the command wrote. A
// FIFO the host makes there during the run is not masked (a read-only
// overlay, which would give each its own pipe, also hides what the host
// adds meanwhile). Found by red-team round 47.
func (o *overlays) seal(dst string) error {
	var special []string
	n := 0
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // out of the init's reach, and so of the command's
		}
		if n++; n > sealLimit {
			return errSealLimit
		}
		if d.Type()&(fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			special = append(special, p)
		}
		return nil
	})
	for _, p := range special {
		if merr := applyOp(mountOp{Kind: opMaskFile, Dst: strings.TrimPrefix(p, newRoot)}, nil); merr != nil && err == nil {
			err = fmt.Errorf("mask %s: %w", strings.TrimPrefix(p, newRoot), merr)
		}
	}
	return err
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

// described describes the scratch directories (layer) and the host
// directories shown unsealed, for ExecResult.Layers.
func (o *overlays) described() []string {
	var out []string
	if l := o.layer(); l != "" {
		out = append(out, l)
	}
	if len(o.unsealed) > 0 {
		out = append(out, "shown(UNAVAILABLE FIFO masks: a host program's FIFO there may be written: "+strings.Join(o.unsealed, "; ")+")")
	}
	return out
}
