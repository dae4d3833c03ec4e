//go:build linux

package linux

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// buildReducedPlan lays out the reduced tier: no namespaces, so no mounts;
// Landlock alone confines the filesystem (deny paths everywhere outside the
// writable roots, and the writes to those roots and a private temporary
// directory) and TCP, seccomp the other socket kinds.
func buildReducedPlan(spec *sandbox.Spec, reason string) (*plan, error) {
	// Planned as if mounts were possible, to say what they would have
	// protected, but without placeholders: nothing would mount on them.
	pl := &plan{dry: true}
	if err := pl.build(spec, false); err != nil {
		return nil, err
	}
	unenforced := unenforcedInWritable(pl.init.Mounts, pl.init.Landlock.WriteRoots)
	pl.init.Mounts = nil
	tmp, err := os.MkdirTemp("", "agentbox-tmp-")
	if err != nil {
		return nil, fmt.Errorf("%w: private temporary directory: %w", sandbox.ErrSetup, err)
	}
	pl.tmpDir = tmp
	ll := &pl.init.Landlock
	// The writable roots the plan kept (deny wins), and the private
	// temporary directory in place of /tmp and /dev/shm.
	var write []string
	for _, w := range ll.WriteRoots {
		if w != "/tmp" && w != "/dev/shm" {
			write = append(write, w)
		}
	}
	ll.WriteRoots = append(write, tmp)
	// No mount masks: Landlock carves out every deny path it can (not those
	// inside writable roots, which it grants whole).
	ll.DenyRead = nil
	for _, d := range spec.Filesystem.DenyRead {
		inWrite := false
		for _, w := range write {
			inWrite = inWrite || paths.Within(d, w)
		}
		if !inWrite {
			ll.DenyRead = append(ll.DenyRead, d)
		}
	}
	// /dev/pts is the host's here, holding every terminal of the user
	// (theirs, mode 0620): not the sandbox's to open, for reading either.
	// Its own terminal, inherited open, stays usable, and /dev/tty opens
	// it.
	ll.Devices = slices.DeleteFunc(slices.Clone(ll.Devices), func(d string) bool { return d == hostPts })
	ll.DenyRead = append(ll.DenyRead, hostPts)
	ll.TCP = spec.Network != sandbox.NetworkAllowed
	pl.init.Reduced = reason
	if len(unenforced) > 0 {
		pl.init.Reduced += fmt.Sprintf("; Landlock grants writable roots whole, so %d protected or denied paths in them are writable and readable (%s)",
			len(unenforced), strings.Join(unenforced[:min(3, len(unenforced))], ", "))
		if len(unenforced) > 3 {
			pl.init.Reduced += ", …"
		}
	}
	if spec.Network == sandbox.NetworkFiltered {
		pl.init.Reduced += "; the filtered network needs a network namespace, so no network at all"
	}
	return pl, nil
}

// unenforcedInWritable lists the read-only and masked paths of the full
// tier's mounts that lie inside a writable root: the reduced tier cannot
// keep them, because Landlock only adds rights.
func unenforcedInWritable(ops []mountOp, writable []string) []string {
	var out []string
	for _, op := range ops {
		switch op.Kind {
		case opBindRO, opMaskDir, opMaskFile, opMaskAuto, opHoldLink:
		default:
			continue
		}
		for _, w := range writable {
			if w != "/tmp" && w != "/dev/shm" && paths.Within(op.Dst, w) && op.Dst != w {
				out = append(out, op.Dst)
				break
			}
		}
	}
	return out
}

// hostPts is where the host's terminals are.
const hostPts = "/dev/pts"
