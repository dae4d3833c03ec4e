//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

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

// build fills in the plan; see buildPlan.
func (pl *plan) build(spec *sandbox.Spec, asRoot bool) error {
	fsSpec := spec.Filesystem
	for _, group := range [][]string{fsSpec.Read, fsSpec.Writable, fsSpec.DenyRead, fsSpec.DenyWrite, fsSpec.Visible, fsSpec.Scratch} {
		for _, p := range group {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("%w: path %q must be absolute and clean", sandbox.ErrSetup, p)
			}
		}
	}
	denied := func(p string) bool {
		for _, d := range fsSpec.DenyRead {
			if paths.Within(p, d) {
				return true
			}
		}
		return false
	}

	var ops []mountOp
	// The private /run hides the host's service sockets (docker, dbus, ...).
	ops = append(ops, mountOp{Kind: opTmpfs, Dst: "/run", Dir: true})
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && paths.Within(target, "/run") {
		ops = append(ops, mountOp{Kind: opBindRO, Src: target, Dst: target})
	}

	var writable []string
	for _, w := range fsSpec.Writable {
		if denied(w) {
			continue // deny wins over write
		}
		fi, err := os.Stat(w)
		if err != nil {
			return fmt.Errorf("%w: writable root %s: %w", sandbox.ErrSetup, w, err)
		}
		writable = append(writable, w)
		op := mountOp{Kind: opBindRW, Src: w, Dst: w, Dir: fi.IsDir()}
		if asRoot {
			op.Kind, op.FD = opIdmapRW, len(pl.idmapped)
			pl.idmapped = append(pl.idmapped, idmapMount{path: w})
		}
		ops = append(ops, op)
	}
	if len(writable) > 0 && !pl.dry {
		placeholders.begin()
		pl.began = true
	}
	shown := make(map[string]bool) // host paths bound read-only, by path
	// A sandbox started by root runs as nobody on the host; its home is
	// shown to it, read-only, as its own.
	if h := fsSpec.Home; asRoot && h != "" && !denied(h) && !paths.WithinAny(h, writable) && (len(fsSpec.Read) == 0 || paths.WithinAny(h, fsSpec.Read)) {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			shown[h] = true
			ops = append(ops, mountOp{Kind: opIdmapRO, Dst: h, Dir: true, FD: len(pl.idmapped)})
			pl.idmapped = append(pl.idmapped, idmapMount{path: h, ro: true})
		}
	}
	// So are the read allow-list's entries inside the home when the home
	// is not listed whole: bound as they are, they would be out of the
	// reach of nobody (a home is rarely searchable by others), and the
	// command would not find what the policy lets it read.
	if h := fsSpec.Home; asRoot && h != "" && !shown[h] && len(fsSpec.Read) > 0 {
		var inHome []string
		for _, r := range slices.Sorted(slices.Values(fsSpec.Read)) {
			if r == h || !paths.Within(r, h) || paths.WithinAny(r, inHome) || denied(r) || paths.WithinAny(r, writable) {
				continue
			}
			fi, err := os.Lstat(r)
			if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
				continue // missing, or a link (the caller resolves them)
			}
			inHome = append(inHome, r)
			shown[r] = true
			ops = append(ops, mountOp{Kind: opIdmapRO, Dst: r, Dir: fi.IsDir(), FD: len(pl.idmapped)})
			pl.idmapped = append(pl.idmapped, idmapMount{path: r, ro: true})
		}
	}
	inWritable := func(p string) bool {
		for _, w := range writable {
			if paths.Within(p, w) {
				return true
			}
		}
		return false
	}
	scratch := scratchDirs(fsSpec, writable, denied)
	for _, s := range scratch {
		ops = append(ops, mountOp{Kind: opOverlay, Dst: s, Dir: true})
	}
	inScratch := func(p string) bool { return paths.WithinAny(p, scratch) }
	// Paths of the host shown inside the private areas, read-only, as the
	// rest of the host is: the caller's working directory inside /tmp or
	// /dev/shm (Visible; nothing of /run, where service sockets live), and
	// the read allow-list's entries in any of them, which the private areas
	// would otherwise hide. Masks inside them land on top.
	show := func(p string, mustBeDir bool) error {
		if shown[p] || slices.Contains(privateAreas, p) || inWritable(p) || denied(p) {
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
		}
		shown[p] = true
		ops = append(ops, mountOp{Kind: opBindRO, Src: p, Dst: p, Dir: fi.IsDir()})
		return nil
	}
	for _, v := range fsSpec.Visible {
		if !paths.WithinAny(v, visibleAreas) || len(fsSpec.Read) > 0 && !paths.WithinAny(v, fsSpec.Read) {
			continue
		}
		if err := show(v, true); err != nil {
			return err
		}
	}
	// So is a home there (HOME=/tmp/... on some CI runners); root's sandbox
	// has it idmapped above.
	if h := fsSpec.Home; h != "" && !asRoot && paths.WithinAny(h, visibleAreas) &&
		(len(fsSpec.Read) == 0 || paths.WithinAny(h, fsSpec.Read)) {
		if err := show(h, false); err != nil {
			return err
		}
	}
	for _, r := range fsSpec.Read {
		if inPrivateArea(r) {
			if err := show(r, false); err != nil {
				return err
			}
		}
	}

	// Protected names inside writable roots stay read-only. Where one does
	// not exist yet but its parent does, a placeholder directory takes its
	// place for the run, so the command cannot create it either.
	var readOnly, links, pinnedLinks []string
	var holdLinks []mountOp
	held := make(map[string]bool)
	holdLink := func(l string) {
		if inWritable(l) && !denied(l) && !held[l] {
			held[l] = true
			pl.hold(l)
			holdLinks = append(holdLinks, mountOp{Kind: opHoldLink, Dst: l})
			pinnedLinks = append(pinnedLinks, l)
		}
	}
	// viaLinks returns p with the links on the way to its last name
	// resolved (a home whose .config a dotfile manager links), holding
	// those links: a mount can only be made, and a placeholder only
	// created, where no link leads.
	// Most names lie right in a writable root, which the caller resolved:
	// each directory is walked once (every command pays this).
	resolvedDirs := make(map[string]string, len(writable))
	for _, w := range writable {
		resolvedDirs[w] = w
	}
	viaLinks := func(p string) string {
		parent := filepath.Dir(p)
		dir, ok := resolvedDirs[parent]
		if !ok {
			var chain []string
			chain, dir = followLinks(parent)
			for _, l := range chain {
				holdLink(l)
			}
			if len(chain) == 0 || dir == "" {
				dir = parent
			}
			resolvedDirs[parent] = dir
		}
		if dir == parent {
			return p
		}
		return filepath.Join(dir, filepath.Base(p))
	}
	for _, w := range writable {
		for _, rel := range fsSpec.ProtectedIfPresent {
			p := viaLinks(filepath.Join(w, rel))
			fi, err := os.Lstat(p)
			switch {
			case err == nil && fi.Mode()&fs.ModeSymlink != 0:
				links = append(links, p)
			case err == nil:
				readOnly = append(readOnly, p)
			}
		}
		for _, rel := range fsSpec.Protected {
			p := viaLinks(filepath.Join(w, rel))
			fi, err := os.Lstat(p)
			switch {
			case err == nil && fi.Mode()&fs.ModeSymlink != 0:
				links = append(links, p)
			case err == nil:
				readOnly = append(readOnly, p)
			case errors.Is(err, fs.ErrNotExist):
				if pfi, err := os.Lstat(filepath.Dir(p)); err == nil && pfi.IsDir() {
					readOnly = append(readOnly, p)
				}
			}
		}
	}
	// A protected name that is a symbolic link (a shared configuration in a
	// monorepo, a dotfile manager's link) is followed by whoever reads it
	// on the host: what it leads to is held read-only where it lies in a
	// writable root, and every link on the way there, directories' too, is
	// pinned (opHoldLink), so that none can be replaced.
	// So is a deny-write path that is a link (a home's .bashrc a dotfile
	// manager links): a link cannot be bound over as a file is.
	denyWrite := make([]string, 0, len(fsSpec.DenyWrite))
	for _, p := range fsSpec.DenyWrite {
		if inWritable(p) {
			p = viaLinks(p)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 && inWritable(p) {
			links = append(links, p)
			continue
		}
		denyWrite = append(denyWrite, p)
	}
	slices.Sort(links)
	for _, p := range slices.Compact(links) {
		chain, target := followLinks(p)
		if inWritable(target) && !denied(target) {
			readOnly = append(readOnly, target)
		}
		for _, l := range chain {
			holdLink(l)
		}
	}
	readOnly = append(readOnly, denyWrite...)
	holds := make([]string, 0, len(fsSpec.Holds))
	holdData := make(map[string][]byte, len(fsSpec.Holds))
	for p, data := range fsSpec.Holds {
		if inWritable(p) {
			p = viaLinks(p)
		}
		holds, holdData[p] = append(holds, p), data
	}
	sort.Strings(holds)
	for _, p := range slices.Compact(holds) {
		if !inWritable(p) || denied(p) {
			continue
		}
		pl.hold(p)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			pfi, err := os.Lstat(filepath.Dir(p))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				// Its directory is missing too: hold that with placeholders,
				// or the command could make both.
				if _, err := pl.ensureExists(filepath.Dir(p), true); errors.Is(err, errCannotCreate) {
					continue
				} else if err != nil {
					return err
				}
			case err != nil || !pfi.IsDir():
				continue
			case os.Geteuid() != 0 && unix.Access(filepath.Dir(p), unix.W_OK) != nil:
				continue // the caller, and so the command, cannot create it either
			}
			if !pl.dry {
				taken, err := placeholders.createFile(p, holdData[p])
				pl.placeholders = append(pl.placeholders, taken...)
				if err != nil {
					return fmt.Errorf("%w: hold %s: %w", sandbox.ErrSetup, p, err)
				}
			}
		}
		readOnly = append(readOnly, p)
	}
	pinned := pinnedLinks // paths inside writable roots that get a mount of their own
	mounted := make(map[string]bool, len(readOnly))
	for _, p := range readOnly {
		if mounted[p] {
			continue // named by more than one protection: one mount holds it
		}
		mounted[p] = true
		if denied(p) || !(inWritable(p) || inPrivateArea(p) || inScratch(p)) {
			continue // already read-only (or masked)
		}
		if inWritable(p) {
			pl.hold(p)
		}
		isDir, err := pl.ensureExists(p, inWritable(p))
		if errors.Is(err, errCannotCreate) {
			continue
		}
		if err != nil {
			return err
		}
		ops = append(ops, mountOp{Kind: opBindRO, Dst: p, Dir: isDir})
		if inWritable(p) || inScratch(p) {
			pinned = append(pinned, p)
		}
	}

	for _, d := range fsSpec.DenyRead {
		if inWritable(d) || inScratch(d) {
			pinned = append(pinned, d)
		}
		if inWritable(d) {
			pl.hold(d)
		}
		fi, err := os.Lstat(d)
		switch {
		case err == nil && fi.IsDir():
			ops = append(ops, mountOp{Kind: opMaskDir, Dst: d, Dir: true})
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			// The caller denies the target too; a symlink cannot be a mountpoint.
		case err == nil:
			ops = append(ops, mountOp{Kind: opMaskFile, Dst: d})
		case errors.Is(err, fs.ErrNotExist) && (inWritable(d) || inPrivateArea(d) || inScratch(d)):
			// Inside a scratch directory the init makes it in the overlay's
			// private layer, which also hides one the host makes later.
			if _, err := pl.ensureExists(d, inWritable(d)); errors.Is(err, errCannotCreate) {
				continue
			} else if err != nil {
				return err
			}
			ops = append(ops, mountOp{Kind: opMaskDir, Dst: d, Dir: true})
		case errors.Is(err, fs.ErrNotExist):
			// Nothing can create it here (read-only); Landlock denies it if the
			// host creates it while the sandbox runs.
		case errors.Is(err, fs.ErrPermission):
			// agentbox cannot look (a parent it may not search). The init,
			// with the user namespace's capabilities over the caller's own
			// files, can: it masks whatever it finds there.
			ops = append(ops, mountOp{Kind: opMaskAuto, Dst: d})
		default:
			return fmt.Errorf("%w: deny path %s: %w", sandbox.ErrSetup, d, err)
		}
	}

	ops = append(ops, pins(append(slices.Clip(writable), scratch...), pinned)...)

	// Parents before children: a mask inside a writable root must land on
	// top of the writable root's mount.
	sort.SliceStable(ops, func(i, j int) bool { return depth(ops[i].Dst) < depth(ops[j].Dst) })
	// Links are held last, once every mount they lie in is in place.
	pl.init.Mounts = append(ops, holdLinks...)

	readRoots := []string{"/"}
	if len(fsSpec.Read) > 0 {
		readRoots = append(append([]string(nil), systemReadPaths...), fsSpec.Read...)
		// The mount layer builds the root from the same list: parents
		// before children, so a child inside a bound parent is skipped.
		allow := append([]string(nil), readRoots...)
		sort.SliceStable(allow, func(i, j int) bool { return depth(allow[i]) < depth(allow[j]) })
		pl.init.ReadOnly = allow
		readRoots = append(readRoots, writable...)
	}
	var llDeny []string
	for _, d := range fsSpec.DenyRead {
		if !inWritable(d) && !inPrivateArea(d) && !inScratch(d) {
			llDeny = append(llDeny, d)
		}
	}
	pl.init.Landlock = landlockSpec{
		ReadRoots:  readRoots,
		DenyRead:   llDeny,
		WriteRoots: slices.Concat(writable, scratch, []string{"/tmp", "/dev/shm"}),
		Devices:    devicePaths,
	}
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
	return nil
}

// followLinks returns every symbolic link the kernel follows to reach p
// (paths.Resolve), directories' and the last name's alike, and where p
// leads, which may be missing; past the kernel's 40 links, the last one.
// target is "" where the way cannot be read (a directory the caller may
// not search): the links found until then are still returned.
func followLinks(p string) (links []string, target string) {
	r, err := paths.Resolve(p)
	if err != nil && !errors.Is(err, paths.ErrTooManyLinks) {
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
	// The caller must be able to create the outermost missing directory (root
	// can anyway); then it can create the rest.
	if unix.Access(filepath.Dir(missing[0]), unix.W_OK) != nil && os.Geteuid() != 0 {
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

// testHookMissing, when set, runs after ensureExists found p missing.
var testHookMissing func(p string)

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
