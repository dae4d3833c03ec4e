package agentbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/internal/staterecord"
)

// A command that may write a directory can leave a symbolic link there,
// and a later writable root or read allow-list entry that goes through it
// would follow it anywhere: to a root-only directory (a root caller's
// writable roots are idmapped, so their owner, root, becomes the sandbox's
// own user), to a crontab directory, or to another project. checkThroughLinks
// refuses links inside the call's own writable roots; grantedRoots extends
// that to every directory a sandbox of this user was ever given to write,
// in any call and any agentbox process, through a record in the state
// directory. Each directory is recorded by its identity (device and inode)
// beside its path, so that renaming it or a parent, or reaching it through
// another mount, does not take its links out of the record.

// grantedFile is the record's name in the state directory: one granted
// writable root per line, "DEV INO BIRTH PATH" with PATH quoted as in Go.
const grantedFile = "granted-writable-roots"

// grantedPruneAt is the record's size at which entries whose path no
// longer exists are dropped (a renamed directory is dropped with them: the
// record stays bounded).
const grantedPruneAt = 512

// fileID identifies a file whatever path reaches it.
type fileID struct {
	dev, ino uint64
	born     int64 // birth time in ns; 0 where unknown
}

// grantedRoot is one entry of the record; id is zero where the system has
// no inode numbers.
type grantedRoot struct {
	path string
	id   fileID
}

func (g grantedRoot) line() string {
	return fmt.Sprintf("%d %d %d %s\n", g.id.dev, g.id.ino, g.id.born, strconv.Quote(g.path))
}

// parseGranted reads one line of the record; ok is false for a line it
// does not understand (skipped).
func parseGranted(line string) (grantedRoot, bool) {
	f := strings.SplitN(line, " ", 4)
	if len(f) != 4 {
		return grantedRoot{}, false
	}
	d, err1 := strconv.ParseUint(f[0], 10, 64)
	i, err2 := strconv.ParseUint(f[1], 10, 64)
	b, err3 := strconv.ParseInt(f[2], 10, 64)
	p, err4 := strconv.Unquote(f[3])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || !filepath.IsAbs(p) {
		return grantedRoot{}, false
	}
	return grantedRoot{path: p, id: fileID{d, i, b}}, true
}

// newGranted describes the directory p (resolved) as it is now.
func newGranted(p string) grantedRoot {
	g := grantedRoot{path: p}
	g.id, _ = idOf(p)
	return g
}

// grantedRoots reads the record: none without a state directory or a
// record; an error when one exists that cannot be read.
func grantedRoots() ([]grantedRoot, error) {
	lines, err := staterecord.Read(grantedFile)
	if err != nil {
		return nil, fmt.Errorf("read the record of writable roots: %w", err)
	}
	var out []grantedRoot
	for _, l := range lines {
		if g, ok := parseGranted(l); ok {
			out = append(out, g)
		}
	}
	return out, nil
}

// soughtLinks returns, resolved as the deny list is, the deny paths whose
// other names (hard links) a command may have made: all but the built-in
// default set. Every sandbox of the default policy masks those (and the
// reduced tier withholds them from Landlock's REFER), so none can have
// reached a file there to link it; searching them would walk a home's
// browser profiles (tens of thousands of entries) at every call. A
// Config that drops one of them from its own deny list lets its sandboxes
// link the files, which later sandboxes then do not look for. defaults is
// defaultDenySet's, which a Manager makes once.
func soughtLinks(deny []string, defaults map[string]bool, res *resolver) []string {
	var own []string
	for _, d := range deny {
		if !defaults[filepath.Clean(d)] {
			own = append(own, d)
		}
	}
	if len(own) == 0 {
		return nil
	}
	return res.all(own, true)
}

// defaultDenySet is DefaultDenyRead as a set of clean paths.
func defaultDenySet() map[string]bool {
	set := make(map[string]bool)
	for _, d := range DefaultDenyRead() {
		set[filepath.Clean(d)] = true
	}
	return set
}

// grantedAreas returns the directories of the record as named there, and,
// for a recorded directory renamed since (or reached through another
// mount), the name a deny path reaches it by: an ancestor of the deny path
// with its identity (red-team round 53). One renamed that holds no deny
// path is not found.
func grantedAreas(granted []grantedRoot, deny []string) []string {
	var out []string
	ids := make(map[fileID]bool, len(granted))
	for _, g := range granted {
		out = append(out, filepath.Clean(g.path))
		if g.id != (fileID{}) {
			ids[g.id] = true
		}
	}
	if len(ids) == 0 {
		return out
	}
	seen := make(map[string]bool) // the deny paths share most of their ancestors
	for _, d := range deny {
		for a := filepath.Dir(d); a != "/" && a != "." && !seen[a]; a = filepath.Dir(a) {
			seen[a] = true
			if id, ok := idOf(a); ok && ids[id] && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// recordGranted adds the roots that are not in the record yet. It must be
// done before the sandbox that may write them starts.
func recordGranted(roots []string) error {
	var lines []string
	for _, r := range roots {
		lines = append(lines, strings.TrimSuffix(newGranted(r).line(), "\n"))
	}
	if err := staterecord.Add(grantedFile, lines, grantedPruneAt, grantedGone); err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	return nil
}

// grantedGone reports whether the directory of a record line no longer
// exists (a renamed one is dropped with it: the record stays bounded).
func grantedGone(line string) bool {
	g, ok := parseGranted(line)
	if !ok {
		return true
	}
	_, err := os.Lstat(g.path)
	return os.IsNotExist(err)
}

// plantArea is where a command may have planted a link: inside the call's
// writable roots or any granted one, by path or by identity, or where
// someone other than the caller (and root) could have made or replaced it.
type plantArea struct {
	paths []string
	ids   map[fileID]bool
}

func newPlantArea(writable []string, granted []grantedRoot) *plantArea {
	a := &plantArea{ids: make(map[fileID]bool)}
	all := slices.Clone(granted)
	for _, w := range writable {
		all = append(all, newGranted(w))
	}
	for _, g := range all {
		a.paths = append(a.paths, g.path)
		if g.id != (fileID{}) {
			a.ids[g.id] = true
		}
	}
	return a
}

// holds reports whether the link at q (whose parent is a resolved path)
// could have been planted by a command, or by another user.
func (a *plantArea) holds(q string) bool {
	if paths.WithinAny(q, a.paths) || untrustedLink(q) {
		return true
	}
	if len(a.ids) == 0 {
		return false
	}
	for d := filepath.Dir(q); ; d = filepath.Dir(d) {
		if id, ok := idOf(d); ok && a.ids[id] {
			return true
		}
		if d == "/" || d == "." {
			return false
		}
	}
}
