//go:build linux

package linux

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/dirlist"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// plan is the parent's translation of a sandbox.Spec into what the init
// executes, plus what the parent must hold while the sandbox runs.
type plan struct {
	init initSpec
	// placeholders are the paths inside writable roots the sandbox relies
	// on (see placeholderRegistry), among them the placeholders made on the
	// host to hold paths that did not exist; released when it ends.
	placeholders []string
	// idmapped are the host paths to hand to the init as idmapped mounts
	// (root callers only), in the order of their FD indexes.
	idmapped []idmapMount
	// tmpDir is the reduced tier's private temporary directory.
	tmpDir string
	// began records placeholders.begin: the plan has writable roots, in
	// which it may make and use placeholders.
	began bool
	// dry plans without making placeholders (the reduced tier).
	dry bool
	// fixed are the names inside writable roots that a mount of the plan
	// covers for the whole run (masked deny paths, read-only protected
	// names, and placeholders for the missing ones): the command can
	// neither create nor replace any of them.
	fixed []string
	// writable are the writable roots kept (deny wins), without the
	// scratch directories, which the reduced tier cannot overlay; denyRead
	// every deny path, the other names of denied files included (see
	// maskOtherNames). The reduced tier builds its Landlock rules from them.
	writable, denyRead []string
}

type idmapMount struct {
	path string
	ro   bool
}

// privateAreas are replaced by an empty tmpfs inside every sandbox: new
// entries may be created there without touching the host.
var privateAreas = []string{"/tmp", "/dev/shm", "/run"}

// visibleAreas are the private areas in which a working directory or home
// of the host is shown (read-only); /run, with the host's service sockets,
// is not one of them.
var visibleAreas = []string{"/tmp", "/dev/shm"}

func inPrivateArea(p string) bool {
	for _, a := range privateAreas {
		if paths.Within(p, a) {
			return true
		}
	}
	return false
}

// devicePaths get read, write and ioctl rights in Landlock.
var devicePaths = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/pts"}

// buildPlan checks spec and lays out the mounts. Paths must be absolute and
// clean; the caller has resolved symlinks.
func buildPlan(spec *sandbox.Spec, asRoot bool) (*plan, error) {
	pl := &plan{}
	if err := pl.build(spec, asRoot); err != nil {
		pl.removePlaceholders()
		return nil, err
	}
	return pl, nil
}

// build fills in the plan; see buildPlan. Each step adds to the mounts
// what one part of the policy needs, in this order: the order of mounts at
// the same depth is kept.
func (pl *plan) build(spec *sandbox.Spec, asRoot bool) error {
	fsSpec := spec.Filesystem
	for _, group := range [][]string{fsSpec.Read, fsSpec.Writable, fsSpec.DenyRead, fsSpec.DenyWrite, fsSpec.Visible, fsSpec.Scratch} {
		for _, p := range group {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("%w: path %q must be absolute and clean", sandbox.ErrSetup, p)
			}
		}
	}
	b := &planner{pl: pl, fs: fsSpec, asRoot: asRoot,
		shown: make(map[string]bool), held: make(map[string]bool)}
	// The private /run hides the host's service sockets (docker, dbus, ...).
	b.ops = append(b.ops, mountOp{Kind: opTmpfs, Dst: "/run", Dir: true})
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && paths.Within(target, "/run") {
		b.ops = append(b.ops, mountOp{Kind: opBindRO, Src: target, Dst: target})
	}
	for _, step := range []func() error{
		b.writableRoots,  // writable roots, bound read-write
		b.idmapHome,      // root's sandbox: the home shown as its own
		b.overlayScratch, // scratch directories
		b.showPrivate,    // host paths shown inside /tmp, /dev/shm
		b.sealShown,      // those directories sealed
		b.protectNames,   // protected names and deny-write paths
		b.holdFiles,      // files held with given contents
		b.bindReadOnly,   // all of those, read-only
		b.maskDenied,     // deny-read paths
		b.hideOpaque,     // directories the walks for other names could not look into
	} {
		if err := step(); err != nil {
			return err
		}
		if b.err != nil {
			return b.err
		}
	}
	b.ops = append(b.ops, pins(append(slices.Clip(b.writable), b.scratch...), b.pinned)...)
	// Parents before children: a mask inside a writable root must land on
	// top of the writable root's mount.
	sortByDepth(b.ops)
	// Links are held last, once every mount they lie in is in place.
	pl.init.Mounts = append(b.ops, b.holdLinks...)
	pl.fixed = b.fixedNames(pl.init.Mounts)
	pl.writable, pl.denyRead = b.writable, b.fs.DenyRead
	b.markWatched(pl.init.Mounts)
	b.landlock()
	pl.setRest(spec)
	return nil
}

// fixedNames lists the destinations of ops in writable roots that hide a
// name or keep it read-only (see plan.fixed). A mask the init decides on
// (opMaskAuto) is left out: it mounts nothing where the name is missing.
func (b *planner) fixedNames(ops []mountOp) []string {
	var out []string
	for _, op := range ops {
		switch op.Kind {
		case opMaskDir, opMaskFile, opBindRO:
			if b.inWritable(op.Dst) {
				out = append(out, op.Dst)
			}
		}
	}
	return out
}

// planner carries what build has worked out from one step to the next.
type planner struct {
	pl     *plan
	fs     sandbox.Filesystem
	asRoot bool
	ops    []mountOp

	writable []string        // the writable roots kept (deny wins)
	scratch  []string        // the scratch directories given an overlay
	shown    map[string]bool // host paths bound read-only, by path

	// readOnly are the paths to keep read-only, links the protected names
	// and deny-write paths that are symbolic links, and pinned the paths
	// inside writable roots that get a mount of their own (see pins).
	readOnly, links, pinned []string
	// holdLinks pin the links on the way to held names (see holdLink).
	holdLinks []mountOp
	held      map[string]bool
	// resolvedDirs maps a directory to where it leads (see viaLinks).
	resolvedDirs map[string]string
	// err is the first way found that cannot be held (followLinks).
	err error
	// deniedLinked are the denied files mask found with other names, and
	// deniedDirs the denied directories it found (see maskOtherNames).
	deniedLinked, deniedDirs []string
	// opaque are the directories the walks for other names could not look
	// into (see hideOpaque).
	opaque []string
	// dirs answers lookups of the many deny paths (see lstat).
	dirs dirlist.Cache
}

func (b *planner) denied(p string) bool     { return paths.WithinAny(p, b.fs.DenyRead) }
func (b *planner) inWritable(p string) bool { return paths.WithinAny(p, b.writable) }
func (b *planner) inScratch(p string) bool  { return paths.WithinAny(p, b.scratch) }

// writableRoots binds the writable roots read-write (idmapped for root's
// sandbox, whose processes are nobody on the host).
func (b *planner) writableRoots() error {
	for _, w := range b.fs.Writable {
		if b.denied(w) {
			continue // deny wins over write
		}
		fi, err := os.Stat(w)
		if err != nil {
			return fmt.Errorf("%w: writable root %s: %w", sandbox.ErrSetup, w, err)
		}
		b.writable = append(b.writable, w)
		op := mountOp{Kind: opBindRW, Src: w, Dst: w, Dir: fi.IsDir()}
		if b.asRoot {
			op.Kind, op.FD = opIdmapRW, len(b.pl.idmapped)
			b.pl.idmapped = append(b.pl.idmapped, idmapMount{path: w})
		}
		b.ops = append(b.ops, op)
	}
	if len(b.writable) > 0 {
		b.pl.beginPlaceholders()
	}
	b.resolvedDirs = make(map[string]string, len(b.writable))
	for _, w := range b.writable {
		b.resolvedDirs[w] = w
	}
	return nil
}

// idmapHome: a sandbox started by root runs as nobody on the host; its
// home is shown to it, read-only, as its own. So are the read allow-list's
// entries inside the home when the home is not listed whole: bound as they
// are, they would be out of the reach of nobody (a home is rarely
// searchable by others), and the command would not find what the policy
// lets it read.
func (b *planner) idmapHome() error {
	h := b.fs.Home
	if !b.asRoot || h == "" {
		return nil
	}
	idmapRO := func(p string, dir bool) {
		b.shown[p] = true
		b.ops = append(b.ops, mountOp{Kind: opIdmapRO, Dst: p, Dir: dir, FD: len(b.pl.idmapped)})
		b.pl.idmapped = append(b.pl.idmapped, idmapMount{path: p, ro: true})
	}
	if !b.denied(h) && !b.inWritable(h) && (len(b.fs.Read) == 0 || paths.WithinAny(h, b.fs.Read)) {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			idmapRO(h, true)
		}
	}
	if b.shown[h] || len(b.fs.Read) == 0 {
		return nil
	}
	var inHome []string
	for _, r := range slices.Sorted(slices.Values(b.fs.Read)) {
		if r == h || !paths.Within(r, h) || paths.WithinAny(r, inHome) || b.denied(r) || b.inWritable(r) {
			continue
		}
		fi, err := os.Lstat(r)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			continue // missing, or a link (the caller resolves them)
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() && paths.WithinAny(r, visibleAreas) {
			continue // a host FIFO or socket in /tmp: nothing could seal it (sealShown)
		}
		inHome = append(inHome, r)
		idmapRO(r, fi.IsDir())
	}
	return nil
}

// overlayScratch gives each scratch directory an overlay (scratchDirs).
func (b *planner) overlayScratch() error {
	b.scratch = scratchDirs(b.fs, b.writable, b.denied)
	for _, s := range b.scratch {
		b.ops = append(b.ops, mountOp{Kind: opOverlay, Dst: s, Dir: true})
	}
	return nil
}

// showPrivate binds paths of the host inside the private areas, read-only,
// as the rest of the host is: the caller's working directory inside /tmp or
// /dev/shm (Visible; nothing of /run, where service sockets live), a home
// there (HOME=/tmp/... on some CI runners; root's sandbox has it idmapped),
// and the read allow-list's entries in any of them, which the private areas
// would otherwise hide. Masks inside them land on top.
func (b *planner) showPrivate() error {
	readable := func(p string) bool { return len(b.fs.Read) == 0 || paths.WithinAny(p, b.fs.Read) }
	for _, v := range b.fs.Visible {
		if !paths.WithinAny(v, visibleAreas) || !readable(v) {
			continue
		}
		if err := b.show(v, true); err != nil {
			return err
		}
	}
	if h := b.fs.Home; h != "" && !b.asRoot && paths.WithinAny(h, visibleAreas) && readable(h) {
		if err := b.show(h, false); err != nil {
			return err
		}
	}
	for _, r := range b.fs.Read {
		if inPrivateArea(r) {
			if err := b.show(r, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// show binds the host's p read-only in the sandbox, once; a missing p is
// an error only where it must be a directory.
func (b *planner) show(p string, mustBeDir bool) error {
	if b.shown[p] || slices.Contains(privateAreas, p) || b.inWritable(p) || b.denied(p) {
		return nil
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil && mustBeDir:
		return fmt.Errorf("%w: visible directory: %w", sandbox.ErrSetup, err)
	case err != nil:
		return nil // not on this host, as elsewhere in the allow-list
	case mustBeDir && !fi.IsDir():
		return fmt.Errorf("%w: visible directory %s is not a directory", sandbox.ErrSetup, p)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return nil // a host FIFO, socket or device: nothing could seal it (sealShown)
	}
	b.shown[p] = true
	b.ops = append(b.ops, mountOp{Kind: opBindRO, Src: p, Dst: p, Dir: fi.IsDir()})
	return nil
}

// sealShown seals every host directory shown in a visible area
// (seal): bound alone, a FIFO in it would carry what the command
// writes to the host program reading it. The seal comes right after the
// directory's bind, before the deny masks below it: a FIFO's mask in a
// directory masked later is hidden with it.
func (b *planner) sealShown() error {
	for _, p := range slices.Sorted(maps.Keys(b.shown)) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && paths.WithinAny(p, visibleAreas) {
			b.ops = append(b.ops, mountOp{Kind: opSeal, Dst: p, Dir: true})
		}
	}
	return nil
}

// landlock lays out the second layer: what may be read (everything, or the
// allow-list with what programs need), written, and the deny paths no mount
// covers.
func (b *planner) landlock() {
	pl := b.pl
	readRoots := []string{"/"}
	if len(b.fs.Read) > 0 {
		readRoots = append(append([]string(nil), systemReadPaths...), b.fs.Read...)
		// The mount layer builds the root from the same list: parents
		// before children, so a child inside a bound parent is skipped.
		allow := append([]string(nil), readRoots...)
		sort.SliceStable(allow, func(i, j int) bool { return depth(allow[i]) < depth(allow[j]) })
		pl.init.ReadOnly = allow
		readRoots = append(readRoots, b.writable...)
	}
	var llDeny []string
	for _, d := range b.fs.DenyRead {
		if !b.inWritable(d) && !inPrivateArea(d) && !b.inScratch(d) {
			llDeny = append(llDeny, d)
		}
	}
	pl.init.Landlock = landlockSpec{
		ReadRoots:  readRoots,
		DenyRead:   llDeny,
		WriteRoots: slices.Concat(b.writable, b.scratch, []string{"/tmp", "/dev/shm"}),
		Devices:    devicePaths,
	}
}

// setRest copies the rest of the spec into the init's: files, network,
// host name and limits.
func (pl *plan) setRest(spec *sandbox.Spec) {
	for name, data := range spec.Files {
		pl.init.Files = append(pl.init.Files, fileSpec{Name: name, Data: data})
	}
	sort.Slice(pl.init.Files, func(i, j int) bool { return pl.init.Files[i].Name < pl.init.Files[j].Name })
	pl.init.Network = spec.Network.String()
	pl.init.AllowUnixSockets = spec.AllowUnixSockets
	pl.init.MissingLayers = spec.AllowReduced
	pl.init.ProxyPort = spec.ProxyPort
	if pl.init.ProxyPort == 0 {
		pl.init.ProxyPort = DefaultProxyPort
	}
	pl.init.Hostname = spec.Hostname
	if pl.init.Hostname == "" {
		pl.init.Hostname = "agentbox"
	}
	l := spec.Limits
	pl.init.Limits = limitsSpec{
		Processes: uint64(max(l.Processes, 0)), MemoryBytes: uint64(max(l.MemoryBytes, 0)),
		FileDescriptors: uint64(max(l.FileDescriptors, 0)), CPUSeconds: uint64(max(l.CPUSeconds, 0)),
		CountedOnly: l.CountedOnly,
	}
	pl.init.TmpfsSize = l.MemoryBytes
}

// followLinks returns every symbolic link the kernel follows to reach p
// (paths.Resolve), directories' and the last name's alike, and where p
// leads, which may be missing. target is "" where the way cannot be read
// (a directory the caller may not search) or leads nowhere (a loop, or
// more links than the kernel follows, which the host's readers cannot
// follow either): the links found until then are still returned, to be
// held. A way through /proc's own links leads wherever its reader is (a
// link to /proc/self/cwd/x reads x in the reader's working directory), so
// nothing can be held for it: the plan fails (b.err), naming the link.
func (b *planner) followLinks(p string) (links []string, target string) {
	r, err := paths.Resolve(p)
	if r.ViaProc && b.err == nil {
		b.err = fmt.Errorf("%w: %s leads through /proc, to wherever the program reading it runs, so agentbox cannot keep what it leads to read-only: remove the link (%s)",
			sandbox.ErrSetup, p, strings.Join(r.Links, ", "))
	}
	if err != nil {
		return r.Links, ""
	}
	return r.Links, r.Target
}

// scratchDirs picks the scratch directories that get an overlay: existing
// directories, readable under the policy, neither denied nor denied to
// write (deny wins; a deny-write path inside one is bound read-only over
// its overlay) nor inside a writable root (already writable) or a private area, and not
// inside another scratch directory. The overlay's options name its layers
// by path, so a path with a character they reserve is left out.
func scratchDirs(fsSpec sandbox.Filesystem, writable []string, denied func(string) bool) []string {
	var out []string
	for _, s := range slices.Sorted(slices.Values(fsSpec.Scratch)) {
		switch {
		case denied(s), paths.WithinAny(s, fsSpec.DenyWrite), paths.WithinAny(s, writable), inPrivateArea(s), paths.WithinAny(s, out),
			len(fsSpec.Read) > 0 && !paths.WithinAny(s, fsSpec.Read), strings.ContainsAny(s, `,:\=`):
			continue
		}
		if fi, err := os.Lstat(s); err != nil || !fi.IsDir() {
			continue // missing, or a symlink: the caller resolves links
		}
		out = append(out, s)
	}
	return out
}

// pins returns a self-bind for every directory strictly between a writable
// root and a path inside it that has a mount of its own. A mountpoint cannot
// be renamed or removed, so a command cannot move a protected or hidden path
// away by renaming one of its parents and then create a fresh one in its
// place. A pin keeps the writability of the mount it is cloned from.
func pins(writable, ps []string) []mountOp {
	own := make(map[string]bool, len(ps))
	for _, p := range ps {
		own[p] = true
	}
	seen := make(map[string]bool)
	var ops []mountOp
	for _, p := range ps {
		for _, w := range writable {
			if !paths.Within(p, w) || p == w {
				continue
			}
			for d := filepath.Dir(p); d != w && paths.Within(d, w); d = filepath.Dir(d) {
				if own[d] || seen[d] {
					continue
				}
				seen[d] = true
				ops = append(ops, mountOp{Kind: opPin, Dst: d, Dir: true})
			}
		}
	}
	return ops
}

// systemReadPaths stay readable when a read allow-list is in force: what a
// process needs to load and run programs.
var systemReadPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/dev", "/tmp"}

func depth(p string) int { return strings.Count(filepath.Clean(p), "/") }

// sortByDepth sorts ops by the depth of their destinations, keeping the
// order of those of one depth (each depth is worked out once).
func sortByDepth(ops []mountOp) {
	type deep struct {
		d  int
		op mountOp
	}
	all := make([]deep, len(ops))
	for i, op := range ops {
		all[i] = deep{depth(op.Dst), op}
	}
	slices.SortStableFunc(all, func(a, b deep) int { return cmp.Compare(a.d, b.d) })
	for i := range all {
		ops[i] = all[i].op
	}
}

// ensureExists makes sure a mountpoint exists at p. On the host (inside a
// writable root) a missing path becomes a placeholder directory that the
// handle removes again; inside a private area the init creates it in its own
// tmpfs.
//
// errCannotCreate means the caller itself may not create the path there
// (the directory is not writable by it): neither can the sandbox, so
// nothing needs holding.
func (pl *plan) ensureExists(p string, onHost bool) (isDir bool, err error) {
	fi, err := os.Lstat(p)
	if err == nil {
		return fi.IsDir(), nil
	}
	if !errors.Is(err, fs.ErrNotExist) || !onHost || pl.dry {
		return true, nil
	}
	if testHookMissing != nil {
		testHookMissing(p)
	}
	var missing []string
	for q := p; ; q = filepath.Dir(q) {
		if _, err := os.Lstat(q); err == nil {
			break
		}
		missing = append([]string{q}, missing...)
	}
	if len(missing) == 0 {
		// Made since the first look: another sandbox's placeholder.
		if fi, err := os.Lstat(p); err == nil {
			return fi.IsDir(), nil
		}
		return true, fmt.Errorf("%w: %s appeared and went again while the sandbox was planned", sandbox.ErrSetup, p)
	}
	// The caller must be able to create the outermost missing directory;
	// then it can create the rest.
	if !mayCreateIn(filepath.Dir(missing[0])) {
		return true, errCannotCreate
	}
	taken, err := placeholders.create(missing)
	pl.placeholders = append(pl.placeholders, taken...)
	if err != nil {
		return true, fmt.Errorf("%w: placeholder for %s: %w", sandbox.ErrSetup, p, err)
	}
	return true, nil
}

var errCannotCreate = errors.New("the caller cannot create it either")

// mayCreateIn reports whether the caller, and so a command it runs, could
// create an entry in dir: as root, with write permission there, or as its
// owner, who may give itself that permission (chmod needs no capability).
func mayCreateIn(dir string) bool {
	if os.Geteuid() == 0 || unix.Access(dir, unix.W_OK) == nil {
		return true
	}
	var st unix.Stat_t
	return unix.Stat(dir, &st) == nil && int(st.Uid) == os.Geteuid()
}

// testHookMissing, when set, runs after ensureExists found p missing.
var testHookMissing func(p string)

// beginPlaceholders marks the plan as one that may make and use
// placeholders (placeholders.begin), once; not in a dry plan.
func (pl *plan) beginPlaceholders() {
	if !pl.began && !pl.dry {
		placeholders.begin()
		pl.began = true
	}
}

// hold marks p as relied on by the sandbox (see placeholderRegistry.hold):
// no agentbox process removes it while the sandbox runs.
func (pl *plan) hold(p string) {
	if pl.began {
		pl.placeholders = append(pl.placeholders, placeholders.hold(p)...)
	}
}

// removePlaceholders releases the placeholders the plan created, once its
// sandbox is gone (or was never started).
func (pl *plan) removePlaceholders() {
	if pl.began {
		placeholders.end(pl.placeholders)
		pl.began = false
	}
	pl.placeholders = nil
}

// cgroupMemory notes that a cgroup bounds the sandbox's memory as a whole:
// the per-process RLIMIT_DATA would only add a limit that runtimes such as
// Go's (which map more than a small limit at start) cannot live with.
func (pl *plan) cgroupMemory() { pl.init.Limits.MemoryBytes = 0 }
