//go:build linux

package linux

import (
	"slices"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// A mask hides a name, not the file: a denied file with another name, a
// hard link, is read and written through it. A command makes one where it
// may write, for a file that was not denied to it (a call without the deny
// the next call has, another agent's sandbox): `ln token .cache` in call
// one, `cat .cache` in call two, which denies token (red-team round 50).
// So the denied files with more than one name (a deny path that is such a
// file, or such a file inside a denied directory that lies where a sandbox
// may write) have their other names found in the writable roots and in
// the directories sandboxes of this user were ever given to write
// (Filesystem.Granted, where such a link can have been made), and those
// are denied too. Names elsewhere, which no sandbox made, are the user's
// own (a backup's hard links): deny paths are paths.

// maskOtherNames masks the other names of the denied files that have
// some, in the writable roots and the granted directories.
func (b *planner) maskOtherNames() error {
	areas := b.linkAreas()
	linked := b.linkedFiles(areas)
	if len(linked) == 0 {
		return nil
	}
	others, err := otherNamesIn(linked, areas, "a command could read and write the denied file through")
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

// linkedFiles returns the regular files with more than one name that the
// deny paths are (mask found them), or that the denied directories inside
// areas hold (each looked through up to maxInsideWalk entries; past that,
// the rest of it is not: a denied directory so large where a sandbox
// wrote is a home's browser profile, not a project's keys).
func (b *planner) linkedFiles(areas []string) []string {
	out := slices.Clone(b.deniedLinked)
	for _, d := range b.deniedDirs {
		if paths.WithinAny(d, areas) {
			budget := maxInsideWalk
			_ = walkLinked(d, &budget, nil, func(f string, _ *unix.Stat_t) { out = append(out, f) }, nil)
		}
	}
	return out
}
