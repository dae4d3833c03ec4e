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
	"syscall"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// The plan's steps that protect paths inside writable roots: names kept
// read-only, files held, deny paths masked, and the symbolic links on the
// way to any of them pinned.

// holdLink pins the link l, where it lies in a writable root: a mount can
// only be made, and a placeholder only created, where no link leads, so a
// link on the way to a held name must not be replaced while the sandbox
// runs (opHoldLink binds it onto itself). A link that is itself a deny
// path is held too (nothing masks a link); one below a deny path is hidden
// by its mask, and not there to hold.
func (b *planner) holdLink(l string) {
	if b.inWritable(l) && !b.masked(l) && !b.held[l] {
		b.held[l] = true
		b.pl.hold(l)
		b.holdLinks = append(b.holdLinks, mountOp{Kind: opHoldLink, Dst: l})
		b.pinned = append(b.pinned, l)
	}
}

// masked reports whether p lies below a deny path (not being one itself).
func (b *planner) masked(p string) bool {
	return slices.ContainsFunc(b.fs.DenyRead, func(d string) bool { return d != p && paths.Within(p, d) })
}

// viaLinks returns p with the links on the way to its last name resolved
// (a home whose .config a dotfile manager links), holding those links.
// Most names lie right in a writable root, which the caller resolved: each
// directory is walked once (every command pays this).
func (b *planner) viaLinks(p string) string {
	parent := filepath.Dir(p)
	dir, ok := b.resolvedDirs[parent]
	if !ok {
		var chain []string
		chain, dir = b.followLinks(parent)
		for _, l := range chain {
			b.holdLink(l)
		}
		if len(chain) == 0 || dir == "" {
			dir = parent
		}
		b.resolvedDirs[parent] = dir
	}
	if dir == parent {
		return p
	}
	return filepath.Join(dir, filepath.Base(p))
}

// protectNames keeps protected names inside writable roots read-only.
// Where one does not exist yet but its parent does, a placeholder
// directory takes its place for the run, so the command cannot create it
// either (Protected; ProtectedIfPresent only where present).
//
// A protected name that is a symbolic link (a shared configuration in a
// monorepo, a dotfile manager's link) is followed by whoever reads it on
// the host: what it leads to is held read-only where it lies in a writable
// root, and every link on the way there, directories' too, is pinned, so
// that none can be replaced. So is a deny-write path that is a link (a
// home's .bashrc a dotfile manager links): a link cannot be bound over as
// a file is. So is a deny-read path that is a link (a dotfile manager's
// ~/.npmrc or ~/.ssh; the caller denies its target too, which is masked):
// else the command could replace it with a file or directory of its own
// (~/.ssh/config with a ProxyCommand) that the host's tools read next. A
// deny path named through a linked directory (W/link/secret, whose name
// the caller keeps beside its target's) has the links on the way held.
func (b *planner) protectNames() error {
	for _, w := range b.writable {
		for _, rel := range b.fs.ProtectedIfPresent {
			b.protect(b.viaLinks(filepath.Join(w, rel)), false)
		}
		for _, rel := range b.fs.Protected {
			b.protect(b.viaLinks(filepath.Join(w, rel)), true)
		}
	}
	denyWrite := make([]string, 0, len(b.fs.DenyWrite))
	for _, p := range b.fs.DenyWrite {
		if b.inWritable(p) {
			p = b.viaLinks(p)
		}
		if isLink(p) && b.inWritable(p) {
			b.links = append(b.links, p)
			continue
		}
		denyWrite = append(denyWrite, p)
	}
	for _, p := range b.fs.DenyRead {
		if !b.inWritable(p) {
			continue
		}
		if p = b.viaLinks(p); isLink(p) && b.inWritable(p) {
			b.links = append(b.links, p)
		}
	}
	slices.Sort(b.links)
	for _, p := range slices.Compact(b.links) {
		b.holdTarget(p, "")
	}
	b.readOnly = append(b.readOnly, denyWrite...)
	return nil
}

// holdTarget keeps what the link l leads to read-only, where it lies in a
// writable root, and pins every link on the way there, but those inside
// roDir, a directory bound read-only already (none if empty): nothing
// there can be replaced.
func (b *planner) holdTarget(l, roDir string) {
	chain, target := b.followLinks(l)
	if roDir != "" && b.enclosing(target, roDir) {
		return
	}
	if b.inWritable(target) && !b.denied(target) && (roDir == "" || !paths.Within(target, roDir)) {
		b.readOnly = append(b.readOnly, target)
	}
	for _, c := range chain {
		if roDir == "" || !paths.Within(c, roDir) {
			b.holdLink(c)
		}
	}
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// enclosing reports whether target, what a link inside the read-only
// directory roDir leads to, holds roDir itself or a writable root
// (.husky/x -> ..): no hook file, and holding it would make the whole root
// read-only for every later run, which a command could arrange by leaving
// such a link in a directory it made. Git and husky run files named in
// roDir, which its own mount keeps; a file reached through the link
// (.husky/x/pre-commit) is the root's own, as writable as without it.
func (b *planner) enclosing(target, roDir string) bool {
	if paths.Within(roDir, target) {
		return true
	}
	return slices.ContainsFunc(b.writable, func(w string) bool { return paths.Within(w, target) })
}

// protect notes the protected name p: a link to follow, or a path to keep
// read-only; a missing one too where missing ones are held and its parent
// is a directory.
func (b *planner) protect(p string, evenMissing bool) {
	fi, err := os.Lstat(p)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		b.links = append(b.links, p)
	case err == nil:
		b.readOnly = append(b.readOnly, p)
	case evenMissing && errors.Is(err, fs.ErrNotExist):
		if pfi, err := os.Lstat(filepath.Dir(p)); err == nil && pfi.IsDir() {
			b.readOnly = append(b.readOnly, p)
		}
	}
}

// holdFiles keeps the held files (Holds) read-only inside writable roots;
// a missing one is made on the host with its given contents for the run.
func (b *planner) holdFiles() error {
	holds := make([]string, 0, len(b.fs.Holds))
	holdData := make(map[string][]byte, len(b.fs.Holds))
	for p, data := range b.fs.Holds {
		if b.inWritable(p) {
			p = b.viaLinks(p)
		}
		holds, holdData[p] = append(holds, p), data
	}
	sort.Strings(holds)
	for _, p := range slices.Compact(holds) {
		if !b.inWritable(p) || b.denied(p) {
			continue
		}
		b.pl.hold(p)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			pfi, err := os.Lstat(filepath.Dir(p))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				// Its directory is missing too: hold that with placeholders,
				// or the command could make both.
				if _, err := b.pl.ensureExists(filepath.Dir(p), true); errors.Is(err, errCannotCreate) {
					continue
				} else if err != nil {
					return err
				}
			case err != nil || !pfi.IsDir():
				continue
			case !mayCreateIn(filepath.Dir(p)):
				continue // the caller, and so the command, cannot create it either
			}
			if !b.pl.dry {
				taken, err := placeholders.createFile(p, holdData[p])
				b.pl.placeholders = append(b.pl.placeholders, taken...)
				if err != nil {
					return fmt.Errorf("%w: hold %s: %w", sandbox.ErrSetup, p, err)
				}
			}
		}
		b.readOnly = append(b.readOnly, p)
	}
	return nil
}

// bindReadOnly binds every path to keep read-only onto itself, where it
// lies in a writable root, a private area or a scratch directory (the rest
// of the host is read-only already), then the other names (hard links) in
// the writable roots of the files it holds. What a symbolic link inside
// one leads to is held as a protected name's is (holdTarget), and bound in
// turn.
func (b *planner) bindReadOnly() error {
	mounted := make(map[string]bool, len(b.readOnly))
	var linked []string // files bound that have other names
	// Targets of links found inside are appended, and bound in turn.
	for i := 0; i < len(b.readOnly); i++ {
		p := b.readOnly[i]
		if mounted[p] {
			continue // named by more than one protection: one mount holds it
		}
		mounted[p] = true
		if b.denied(p) || !(b.inWritable(p) || b.inShown(p) || b.inScratch(p)) {
			// Already read-only (or masked); or in a private area where
			// nothing of the host's is shown, so that a write there stays
			// in the sandbox's own tmpfs (the manifests and logs of runs
			// in the host's /tmp that keptfiles records: a mount each).
			// Either way a file with another name in a writable root is
			// written through it: that name is held too (red-team round
			// 57).
			if !b.denied(p) && len(b.writable) > 0 {
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && multiLinked(fi) {
					linked = append(linked, p)
				}
			}
			continue
		}
		if b.inWritable(p) {
			b.pl.hold(p)
		}
		isDir, err := b.pl.ensureExists(p, b.inWritable(p))
		if errors.Is(err, errCannotCreate) {
			continue
		}
		if err != nil {
			return err
		}
		b.ops = append(b.ops, mountOp{Kind: opBindRO, Dst: p, Dir: isDir})
		if b.inWritable(p) || b.inScratch(p) {
			b.pinned = append(b.pinned, p)
		}
		if b.inWritable(p) {
			in, err := linkedUnder(p)
			if err != nil {
				return err
			}
			linked = append(linked, in.hard...)
			for _, l := range in.links {
				b.holdTarget(l, p)
			}
		}
	}
	others, err := b.otherNames(linked)
	if err != nil {
		return err
	}
	for _, p := range others {
		if mounted[p] || b.denied(p) {
			continue
		}
		b.pl.hold(p)
		b.ops = append(b.ops, mountOp{Kind: opBindRO, Dst: p})
		b.pinned = append(b.pinned, p)
	}
	return nil
}

// maskDenied hides every deny-read path: an empty directory or file over
// it, made first where it is missing in a place the command could create
// it, or the host could while the command runs (see onHost). A deny path
// named through a linked directory in a writable root is masked where it
// leads (viaLinks; protectNames held the links).
func (b *planner) maskDenied() error {
	seen := make(map[string]bool, len(b.fs.DenyRead))
	for _, d := range b.fs.DenyRead {
		if b.inWritable(d) {
			d = b.viaLinks(d)
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		if err := b.mask(d); err != nil {
			return err
		}
	}
	return b.maskOtherNames()
}

// mask hides the deny path d (see maskDenied). One in a private area where
// nothing of the host's is shown needs no mount: the sandbox's /tmp,
// /dev/shm and /run are tmpfs mounts of its own (the vaults and
// passphrase files of runs in the host's /tmp that keptfiles records, the
// daemon sockets under /run), and Landlock, given the deny list, is what
// holds them in the reduced tier.
func (b *planner) mask(d string) error {
	if inPrivateArea(d) && !b.inWritable(d) && !b.inShown(d) && !b.inScratch(d) {
		// No mount; but the file's other names (hard links) in the
		// writable roots are the host's file, and are masked as any
		// denied file's are (red-team round 57).
		b.noteLinked(d)
		return nil
	}
	if b.inWritable(d) || b.inScratch(d) {
		b.pinned = append(b.pinned, d)
	}
	onHost := b.onHost(d)
	if onHost {
		b.pl.beginPlaceholders()
		b.pl.hold(d)
	}
	fi, err := b.lstat(d)
	switch {
	case err == nil && fi.IsDir():
		b.ops = append(b.ops, mountOp{Kind: opMaskDir, Dst: d, Dir: true})
		b.recordDenied(d, fi)
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// The caller denies the target too, which is masked; a symlink
		// cannot be a mountpoint. protectNames held it in a writable root.
	case err == nil:
		b.ops = append(b.ops, mountOp{Kind: opMaskFile, Dst: d})
		b.recordDenied(d, fi)
	case errors.Is(err, fs.ErrNotExist) && (onHost || inPrivateArea(d) || b.inScratch(d)):
		// Inside a scratch directory the init makes it in the overlay's
		// private layer, which also hides one the host makes later.
		if _, err := b.pl.ensureExists(d, onHost); errors.Is(err, errCannotCreate) && !b.inWritable(d) {
			return fmt.Errorf("%w: deny path %s is missing in a directory shown read-only from the host, where agentbox cannot hold its place (the caller may not create it there): a file the host made there during the run would be readable; create it, or run elsewhere", sandbox.ErrSetup, d)
		} else if errors.Is(err, errCannotCreate) {
			return nil
		} else if err != nil {
			return err
		}
		b.ops = append(b.ops, mountOp{Kind: opMaskDir, Dst: d, Dir: true})
	case errors.Is(err, fs.ErrNotExist):
		// Nothing can create it here (read-only); Landlock denies it if the
		// host creates it while the sandbox runs.
	case errors.Is(err, syscall.ENOTDIR):
		// A parent is not a directory (a file, or a FIFO an earlier
		// command left: red-team round 58): the path cannot exist, nor
		// its place be held. Only a command that may write the parent
		// could make it a directory, and what it puts there is its own.
	case errors.Is(err, fs.ErrPermission):
		// agentbox cannot look (a parent it may not search). The init,
		// with the user namespace's capabilities over the caller's own
		// files, can: it masks whatever it finds there.
		b.ops = append(b.ops, mountOp{Kind: opMaskAuto, Dst: d})
	default:
		return fmt.Errorf("%w: deny path %s: %w", sandbox.ErrSetup, d, err)
	}
	return nil
}

// lstat is os.Lstat, but for a path its directory's listing says is
// missing (most deny paths: see dirlist), answered without a lookup.
func (b *planner) lstat(p string) (fs.FileInfo, error) {
	if b.dirs.Missing(p) {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	}
	return os.Lstat(p)
}

// noteLinked records the denied path d for maskOtherNames where mask
// mounts nothing (see recordDenied).
func (b *planner) noteLinked(d string) {
	if fi, err := os.Lstat(d); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		b.recordDenied(d, fi)
	}
}

// recordDenied records the denied path d (not a symbolic link) for
// maskOtherNames: a directory, or a file with more than one name.
func (b *planner) recordDenied(d string, fi fs.FileInfo) {
	switch {
	case fi.IsDir():
		b.deniedDirs = append(b.deniedDirs, d)
	case multiLinked(fi):
		b.deniedLinked = append(b.deniedLinked, d)
	}
}

// multiLinked reports whether fi is a file with more than one name.
func multiLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && !fi.IsDir() && st.Nlink > 1
}

// inShown reports whether p lies in a host path shown inside a private
// area: a working directory in /tmp, or anything else bound there from the
// host (the target of /etc/resolv.conf under /run).
func (b *planner) inShown(p string) bool {
	for s := range b.shown {
		if inPrivateArea(s) && paths.Within(p, s) {
			return true
		}
	}
	for _, op := range b.ops {
		if (op.Kind == opBindRO || op.Kind == opBindRW) && op.Src != "" && inPrivateArea(op.Dst) && paths.Within(p, op.Dst) {
			return true
		}
	}
	return false
}

// onHost reports whether the deny path d lies where a missing one is held
// by a placeholder on the host: in a writable root (else the command could
// make it), or in a host directory shown read-only inside a private area
// (a working directory or home in /tmp). There Landlock cannot refuse a
// file the host makes during the run, since it grants the whole private
// tmpfs for writing (a carve-out would forbid new files in /tmp too), and
// the init cannot make a mountpoint in the read-only view: so the plan
// makes it on the host, as in a writable root, and the mask covers what
// the host puts there meanwhile.
func (b *planner) onHost(d string) bool {
	if b.inWritable(d) {
		return true
	}
	if !inPrivateArea(d) || b.pl.dry {
		return false
	}
	for s := range b.shown {
		if paths.Within(d, s) {
			return true
		}
	}
	return false
}

// watchedIn says, for each kind of mount that hides a path or keeps it
// read-only, where the mount alone does so, and must therefore stay for
// the run (mountWatch): inside writable roots and scratch directories,
// where Landlock grants everything below the root, and, for a mask, in a
// host path shown in a private area too (a deny path in a working
// directory in /tmp, which Landlock leaves to the mask). A host program
// that renames a file over such a name or removes it (git's config.lock
// renamed over .git/config, an editor's or npm's atomic rewrite) detaches
// the mount in every namespace; one that moves it away (an editor's backup
// save) leaves the name to the host. Elsewhere the host tree is read-only and Landlock
// denies the deny paths itself; the private areas' own tmpfs is out of the
// host's reach.
var watchedIn = map[opKind]struct{ shown bool }{
	opMaskDir:  {shown: true},
	opMaskFile: {shown: true},
	opMaskAuto: {shown: true},
	opBindRO:   {},
	opPin:      {},
	opHoldLink: {},
}

// markWatched sets Watch on the mounts the init must keep watching.
func (b *planner) markWatched(ops []mountOp) {
	for i, op := range ops {
		w, ok := watchedIn[op.Kind]
		ops[i].Watch = ok && (b.inWritable(op.Dst) || b.inScratch(op.Dst) || w.shown && b.inShownPrivate(op.Dst))
	}
}

// inShownPrivate reports whether p lies in a host path shown in a private
// area (showPrivate).
func (b *planner) inShownPrivate(p string) bool {
	for s := range b.shown {
		if inPrivateArea(s) && paths.Within(p, s) {
			return true
		}
	}
	return false
}
