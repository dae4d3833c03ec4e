package agentbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
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
	f, err := openGranted(os.O_RDONLY)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errNoStateDir):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the record of writable roots: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, false); err != nil {
		return nil, fmt.Errorf("read the record of writable roots: %w", err)
	}
	roots, err := readGranted(f)
	if err != nil {
		return nil, fmt.Errorf("read the record of writable roots: %w", err)
	}
	return roots, nil
}

// recordGranted adds the roots that are not in the record yet. It must be
// done before the sandbox that may write them starts.
func recordGranted(roots []string) error {
	if len(roots) == 0 {
		return nil
	}
	dir, err := paths.StateDir()
	if err == nil {
		err = paths.Ensure(dir)
	}
	if err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	f, err := openGranted(os.O_RDWR | os.O_CREATE)
	if err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	known, err := readGranted(f)
	if err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	var add []grantedRoot
	for _, r := range roots {
		g := newGranted(r)
		if !slices.Contains(known, g) && !slices.Contains(add, g) {
			add = append(add, g)
		}
	}
	if len(add) == 0 {
		return nil
	}
	all := append(known, add...)
	if len(all) >= grantedPruneAt {
		all = slices.DeleteFunc(all, func(g grantedRoot) bool {
			_, err := os.Lstat(g.path)
			return os.IsNotExist(err)
		})
		// Rewritten in place and cut to length after: a write that fails
		// half-way leaves old entries behind (the safe side), never an
		// empty record.
		var buf bytes.Buffer
		for _, g := range all {
			buf.WriteString(g.line())
		}
		if _, err := f.WriteAt(buf.Bytes(), 0); err != nil {
			return fmt.Errorf("record writable roots: %w", err)
		}
		if err := f.Truncate(int64(buf.Len())); err != nil {
			return fmt.Errorf("record writable roots: %w", err)
		}
		return f.Sync()
	}
	var buf bytes.Buffer
	for _, g := range add {
		buf.WriteString(g.line())
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("record writable roots: %w", err)
	}
	return nil
}

var errNoStateDir = errors.New("no state directory")

func openGranted(flag int) (*os.File, error) {
	dir, err := paths.StateDir()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoStateDir, err)
	}
	return os.OpenFile(filepath.Join(dir, grantedFile), flag, 0o600)
}

func readGranted(f *os.File) ([]grantedRoot, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var out []grantedRoot
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20) // a quoted path is at most a few KiB
	for sc.Scan() {
		if g, ok := parseGranted(sc.Text()); ok {
			out = append(out, g)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w (the record is damaged: remove it to start a new one, which forgets the directories granted before)", f.Name(), err)
	}
	return out, nil
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
