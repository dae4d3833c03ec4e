//go:build linux

package linux

import (
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// A mask hides a name, not the file: a denied file with another name, a
// hard link, is read and written through it. A command makes one where it
// may write, for a file that was not denied to it (a call without the deny
// the next call has, another agent's sandbox): `ln token .cache` in call
// one, `cat .cache` in call two, which denies token (red-team round 50).
// So, of the deny paths the caller names a sandbox may have reached
// (Filesystem.SeekLinks: not the built-in default set, which every
// sandbox masks), the denied files with more than one name (a deny path
// that is such a file — a regular file, or a socket such as an agent's —
// or such a file inside a denied directory that overlaps where a sandbox
// may write) have their other names found in the writable roots and in
// the directories sandboxes of this user were ever given to write
// (Filesystem.Granted, where such a link can have been made), and those
// are denied too. Names elsewhere, which no sandbox made, are the user's
// own (a backup's hard links): deny paths are paths.

// maskOtherNames masks the other names of the denied files that have
// some, in the writable roots and the granted directories.
func (b *planner) maskOtherNames() error {
	areas := b.linkAreas()
	linked, err := b.linkedFiles(areas)
	if err != nil {
		return err
	}
	if len(linked) == 0 {
		return nil
	}
	others, err := otherNamesIn(linked, areas, "a command could read and write the denied file through", b.addOpaque)
	if err != nil {
		return err
	}
	var fresh []string
	for _, p := range others {
		if !b.denied(p) {
			fresh = append(fresh, p)
		}
	}
	// Landlock denies them too where no mount of the command's covers them.
	b.fs.DenyRead = append(slices.Clip(b.fs.DenyRead), fresh...)
	for _, p := range fresh {
		if err := b.mask(p); err != nil {
			return err
		}
	}
	return nil
}

// linkAreas are the directories a command may have made a link in: the
// writable roots and the granted directories, none inside another.
func (b *planner) linkAreas() []string {
	var out []string
	for _, d := range slices.Sorted(slices.Values(slices.Concat(b.writable, b.fs.Granted))) {
		if len(out) == 0 || !paths.Within(d, out[len(out)-1]) {
			out = append(out, d)
		}
	}
	return out
}

// linkedFiles returns the files with more than one name that the deny
// paths are (mask found them: regular files, sockets — an agent's — and
// the like), or that the denied directories overlapping areas hold (lying
// in one, or holding one). Each such directory is looked through up to
// maxInsideWalk entries; past that, or where one cannot be read, the areas
// are walked instead for every file with more than one name that lies in a
// denied directory (a command may pad the directory to hide the file from
// the first walk: red-team round 53).
func (b *planner) linkedFiles(areas []string) ([]string, error) {
	sought := func(p string) bool { return paths.WithinAny(p, b.fs.SeekLinks) }
	out := slices.DeleteFunc(slices.Clone(b.deniedLinked), func(f string) bool { return !sought(f) })
	dirs := slices.DeleteFunc(slices.Clone(b.deniedDirs), func(d string) bool { return !sought(d) })
	fallback := false
	for _, d := range dirs {
		if !paths.WithinAny(d, areas) && !slices.ContainsFunc(areas, func(a string) bool { return paths.Within(a, d) }) {
			continue
		}
		budget := maxInsideWalk
		if walkLinked(d, &budget, nil, func(f string, _ *unix.Stat_t) { out = append(out, f) }, nil) != nil {
			fallback = true
		}
	}
	if !fallback {
		return out, nil
	}
	budget := maxLinkWalk
	for _, a := range areas {
		// A directory the walk cannot look into, neither in a denied one
		// nor holding one, holds none of their files (otherNamesIn hides it if it may hold
		// their other names); inside one it may hold any.
		var inDenied error
		err := linkWalk{budget: &budget, found: func(f string, _ *unix.Stat_t) {
			if paths.WithinAny(f, dirs) {
				out = append(out, f)
			}
		}, opaque: func(d string) {
			holds := slices.ContainsFunc(dirs, func(x string) bool { return paths.Within(x, d) })
			if (holds || paths.WithinAny(d, dirs)) && inDenied == nil {
				inDenied = fmt.Errorf("%s cannot be looked into", d)
			}
		}}.run(a)
		if err == nil {
			err = inDenied
		}
		if err != nil {
			return nil, fmt.Errorf("%w: a denied directory holds more than %d entries, or one agentbox cannot read, and agentbox cannot find the other names (hard links) of the files in it in %s (%v), which a command could read them through", sandbox.ErrSetup, maxInsideWalk, a, err)
		}
	}
	return out, nil
}

// addOpaque notes a directory in a writable root or a granted directory
// that a walk for other names could not look into (see linkWalk.opaque):
// one the command made unreadable, or a chain deeper than a path can name
// (red-team round 53). What it holds is unknown, so hideOpaque keeps every
// command out of it, instead of refusing the sandbox (a command could
// otherwise make every later one be refused).
func (b *planner) addOpaque(d string) {
	if !slices.Contains(b.opaque, d) {
		b.opaque = append(b.opaque, d)
	}
}

// hideOpaque masks the directories addOpaque noted, as deny paths (the
// reduced tier's Landlock leaves out those it can), and drops the mounts
// planned inside them, which the mask hides already.
func (b *planner) hideOpaque() error {
	for _, d := range b.opaque {
		if b.denied(d) {
			continue
		}
		b.fs.DenyRead = append(slices.Clip(b.fs.DenyRead), d)
		if err := b.mask(d); err != nil {
			return err
		}
	}
	inside := func(op mountOp) bool {
		return slices.ContainsFunc(b.opaque, func(d string) bool { return op.Dst != d && paths.Within(op.Dst, d) })
	}
	b.ops = slices.DeleteFunc(b.ops, inside)
	b.holdLinks = slices.DeleteFunc(b.holdLinks, inside)
	b.pinned = slices.DeleteFunc(b.pinned, func(p string) bool { return inside(mountOp{Dst: p}) })
	return nil
}
