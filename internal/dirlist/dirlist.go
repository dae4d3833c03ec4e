// Package dirlist answers many lookups of names in a few directories from
// one read of each directory. agentbox asks, at every command, about each
// of some 200 deny paths, most of them missing, nearly all in the home
// directory and ~/.config: a listing (names and types, one getdents for
// most directories) costs less than one lstat per name.
//
// A listing is as old as the lookups it replaces would be: both are taken
// before the sandbox starts, and what the host changes later is judged by
// the sandbox's own layers, not by these answers. And a listing answers
// for lookups only where a lookup finds exactly the names listed: on a
// file system that ignores case (vfat, casefolded ext4, most FUSE file
// systems), a deny path spelled in another case than the file is missing
// from the listing and found by every lookup (red-team round 63). Only
// directories of file systems known to compare names byte for byte are
// listed (see exactNames); elsewhere the caller looks each name up.
package dirlist

import (
	"io/fs"
	"path/filepath"
)

// listAfter is the number of lookups in one directory after which the
// directory is read instead of each name looked up.
const listAfter = 4

// Cache answers lookups from directory listings. The zero Cache is ready;
// it is not safe for concurrent use.
type Cache struct {
	asked   map[string]int
	listing map[string]map[string]fs.FileMode
}

// Type returns the type of dir/name (fs.ModeDir, fs.ModeSymlink, 0 for a
// regular file, ...) and whether it exists, from dir's listing; listed is
// false when the Cache has no listing of dir to answer from (too few
// lookups in it yet, or dir cannot be read): the caller looks the name up
// itself.
func (c *Cache) Type(dir, name string) (mode fs.FileMode, exists, listed bool) {
	l, listed := c.list(dir)
	if !listed {
		return 0, false, false
	}
	mode, exists = l[name]
	return mode, exists, true
}

// Missing reports whether the listings say that p does not exist: its
// directory's has no such name, or its directory is missing itself.
// False means only that it may exist: the caller looks it up.
func (c *Cache) Missing(p string) bool {
	dir := filepath.Dir(p)
	if dir == p {
		return false
	}
	if _, exists, listed := c.Type(dir, filepath.Base(p)); listed {
		return !exists
	}
	return c.Missing(dir)
}

// Lists reports whether the Cache would answer from a listing of dir: it
// is a directory this platform and file system let it list (on Linux, one
// whose lookups find exactly the names its listing has).
func Lists(dir string) bool {
	f, err := openDir(dir)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// list returns dir's listing, reading it at the listAfter-th lookup.
func (c *Cache) list(dir string) (map[string]fs.FileMode, bool) {
	if l, ok := c.listing[dir]; ok {
		return l, l != nil
	}
	if c.asked == nil {
		c.asked = make(map[string]int)
	}
	if c.asked[dir]++; c.asked[dir] < listAfter {
		return nil, false
	}
	l, err := read(dir)
	if c.listing == nil {
		c.listing = make(map[string]map[string]fs.FileMode)
	}
	c.listing[dir] = l // nil when unreadable: asked no more
	return l, err == nil
}

// read lists dir: each name with its type.
func read(dir string) (map[string]fs.FileMode, error) {
	f, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	l := make(map[string]fs.FileMode, len(ents))
	for _, e := range ents {
		l[e.Name()] = e.Type()
	}
	return l, nil
}
