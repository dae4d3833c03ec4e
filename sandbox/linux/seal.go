//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

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
func seal(dst string) error {
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

// unsealedLayer describes, for ExecResult.Layers, the shown directories
// whose FIFOs seal could not all mask; "" when there are none.
func unsealedLayer(unsealed []string) string {
	if len(unsealed) == 0 {
		return ""
	}
	return "shown(UNAVAILABLE FIFO masks: a host program's FIFO there may be written: " + strings.Join(unsealed, "; ") + ")"
}
