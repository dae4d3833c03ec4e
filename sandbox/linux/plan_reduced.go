//go:build linux

package linux

import (
	"fmt"
	"path/filepath"
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
	unenforced := unenforcedInWritable(pl.init.Mounts, pl.writable)
	mounts := pl.init.Mounts
	pl.init.Mounts = nil
	tmp, tmpDegraded, err := makeReducedTmp(reducedTmpParents(), spec.Limits.MemoryBytes > 0)
	if err != nil {
		return nil, fmt.Errorf("%w: private temporary directory: %w", sandbox.ErrSetup, err)
	}
	pl.tmpDir = tmp
	pl.init.PrivateTmp = tmp
	ll := &pl.init.Landlock
	// The writable roots the plan kept (deny wins), and the private
	// temporary directory in place of /tmp and /dev/shm. Not the scratch
	// directories: without an overlay a write there would reach the host
	// (they stay read-only; red-team round 51).
	write := slices.Clone(pl.writable)
	hidden, shown := hostPrivateAreas(mounts, write)
	ll.WriteRoots = append(write, tmp)
	ll.Hidden = hidden
	ll.ReadRoots = append(slices.Clip(ll.ReadRoots), shown...)
	// No mount masks: Landlock carves out every deny path it can (not those
	// inside writable roots, which it grants whole), the other names of
	// denied files the plan found among them (red-team round 51).
	ll.DenyRead = nil
	for _, d := range pl.denyRead {
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
	if tmpDegraded != "" {
		pl.init.Reduced += "; " + tmpDegraded
	}
	if spec.Network == sandbox.NetworkFiltered {
		pl.init.Reduced += "; the filtered network needs a network namespace, so no network at all"
	}
	// The host's /dev/shm is withheld whole (its other segments are the
	// user's), and glibc's shm_open and sem_open use no other place.
	pl.init.Reduced += "; no /dev/shm: POSIX shared memory and named semaphores (Python's multiprocessing locks and process pools) fail"
	// The full tier bounds these in its own user namespace (ucounts.go);
	// nothing else bounds them per process.
	pl.init.Reduced += "; " + reducedUnboundedCounts
	return pl, nil
}

// reducedUnboundedCounts says what the reduced tier leaves unbounded of the
// kernel objects counted per user.
const reducedUnboundedCounts = "no user namespace to bound the per-user counts in: the program may take all of the user's inotify instances and watches while it runs (the user's editors and file watchers then get none)"

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

// hostPrivateAreas returns the private areas of the full tier that the
// reduced tier must hide, and what the full tier shows in them. There they
// are empty tmpfs mounts, which is why the deny list leaves them out; here
// they are the host's own, holding what the user's programs keep out of
// sight of other users (Kerberos ticket caches in /tmp, POSIX shared
// memory in /dev/shm, $XDG_RUNTIME_DIR/containers/auth.json under /run),
// so Landlock withholds them whole, writes included (the tier's TMPDIR is
// a writable root of its own, wherever it lies). What the full tier binds
// into them read-only stays readable: a working directory, home or read
// allow-list entry in /tmp or /dev/shm, and the target of
// /etc/resolv.conf in /run. Those inside a writable root are granted with
// it.
func hostPrivateAreas(ops []mountOp, writable []string) (hidden, shown []string) {
	for _, a := range privateAreas {
		if !paths.WithinAny(a, writable) {
			hidden = append(hidden, a)
		}
	}
	for _, op := range ops {
		if op.Kind == opBindRO && inPrivateArea(op.Dst) && !paths.WithinAny(op.Dst, writable) {
			shown = append(shown, op.Dst)
		}
	}
	return hidden, shown
}

// privateTmpEnv points TMPDIR at the tier's private temporary directory.
// The root package sets TMPDIR=/tmp, the full tier's private /tmp; here
// that is the host's, which the tier hides, and glibc's and Go's getenv
// take the first of two TMPDIR entries, so it is replaced rather than
// followed by another. A TMPDIR the caller pointed elsewhere (into a
// writable root, say) is kept. The caches the root package points into
// the private /tmp (missingCaches: XDG_CACHE_HOME, npm_config_cache, for a
// home without them) move with it, into tmp: left in the host's /tmp, go
// build and npm could not create them.
func privateTmpEnv(env []string, tmp string) []string {
	out := make([]string, 0, len(env)+1)
	kept := false
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "TMPDIR":
			if v == "" || inPrivateArea(filepath.Clean(v)) {
				continue
			}
			kept = true
		case tmpCacheVars[k]:
			if rest, ok := strings.CutPrefix(filepath.Clean(v), "/tmp/"); ok {
				kv = k + "=" + filepath.Join(tmp, rest)
			}
		}
		out = append(out, kv)
	}
	if !kept {
		out = append(out, "TMPDIR="+tmp)
	}
	return out
}

// tmpCacheVars are the variables whose value in /tmp privateTmpEnv moves
// into the tier's private temporary directory.
var tmpCacheVars = map[string]bool{"XDG_CACHE_HOME": true, "npm_config_cache": true}

// hostPts is where the host's terminals are.
const hostPts = "/dev/pts"
