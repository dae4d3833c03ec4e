//go:build linux

package linux

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"golang.org/x/sys/unix"
)

// placeholderRegistry counts the sandboxes that use each placeholder this
// process created, so that one sandbox ending never removes a mountpoint
// another still relies on.
//
// Placeholders are shared with other agentbox processes of the user too,
// through the lock and the journal of a stateStore: a placeholder is
// a mountpoint in the sandboxes that use it, each in its own mount
// namespace, and removing it on the host detaches those mounts (Linux lets
// one namespace remove another's mountpoint), after which a sandbox of
// another process could create the protected name after all. So every
// process holds the store's lock shared while it has a sandbox, and removes
// placeholders only when it can take the lock exclusively: then no other
// process has one. What it cannot remove then, and what a killed agentbox
// left, the journal keeps for the next process that can.
type placeholderRegistry struct {
	mu     sync.Mutex
	refs   map[string]*placeholder
	active int // sandboxes of this process between begin and end
	store  *stateStore
}

// placeholder is one directory or file the registry created.
type placeholder struct {
	users int
	file  bool
	sum   string // a file's content's SHA-256, for the journal
}

var placeholders = placeholderRegistry{store: new(stateStore)}

// placeholderPerm is a placeholder directory's mode: only a directory with
// it is removed as one.
const placeholderPerm = 0o700

// begin marks a sandbox of this process starting, before its plan looks at
// the writable roots; end (after the sandbox is gone) matches it.
func (r *placeholderRegistry) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active++; r.active == 1 {
		// The first sandbox of a while: remove what others left, if none
		// of them runs a sandbox now.
		r.store.acquire(r.removeLocked)
	}
}

// end releases the placeholders ds of a sandbox that began, and removes
// those no sandbox of any process uses any more.
func (r *placeholderRegistry) end(ds []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(ds) // journaled: removed below if no process uses them
	r.active--
	r.store.release(r.active == 0, r.journalLocked(), r.removeLocked)
}

// journalLocked lists the placeholders this process still uses.
func (r *placeholderRegistry) journalLocked() []journalEntry {
	out := make([]journalEntry, 0, len(r.refs))
	for p, e := range r.refs {
		out = append(out, journalEntry{path: p, file: e.file, sum: e.sum})
	}
	return out
}

// take adds a user to the placeholder p, recording it if it is new.
func (r *placeholderRegistry) take(p string, file bool, sum string) {
	if r.refs == nil {
		r.refs = make(map[string]*placeholder)
	}
	e := r.refs[p]
	if e == nil {
		e = &placeholder{file: file, sum: sum}
		r.refs[p] = e
	}
	e.users++
}

// create makes the missing directories of p (from the outermost), recording
// each, and takes a reference on every placeholder along the way.
func (r *placeholderRegistry) create(missing []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var taken []string
	for _, d := range missing {
		if r.refs[d] == nil {
			// Journaled first: a process killed right after leaves nothing
			// that no one knows of.
			if err := r.store.record(journalEntry{path: d}); err != nil {
				r.dropLocked(taken) // journaled: removed when no process uses them
				return nil, err
			}
		}
		err := inParent(d, func(dir int, name string) error { return unix.Mkdirat(dir, name, placeholderPerm) })
		if err != nil && !(errors.Is(err, fs.ErrExist) && r.refs[d] != nil) {
			r.dropLocked(taken) // journaled: removed when no process uses them
			return nil, err
		}
		r.take(d, false, "")
		taken = append(taken, d)
	}
	return taken, nil
}

// share takes a reference on p if it is a placeholder of this process, and
// returns it to be released with the plan's own.
func (r *placeholderRegistry) share(p string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.refs[p]; e != nil {
		e.users++
		return []string{p}
	}
	return nil
}

// createFile creates the file p with content (exclusively) unless this
// process already holds it, and takes a reference on it.
func (r *placeholderRegistry) createFile(p string, content []byte) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sum := contentSum(content)
	if r.refs[p] == nil {
		if err := r.store.record(journalEntry{path: p, file: true, sum: sum}); err != nil {
			return nil, err
		}
		if err := inParent(p, func(dir int, name string) error { return writeNewFile(dir, name, content) }); err != nil {
			return nil, err
		}
	}
	r.take(p, true, sum)
	return []string{p}, nil
}

// dropLocked drops a reference on each of ds and returns the placeholders
// no sandbox of this process uses any more, deepest first.
func (r *placeholderRegistry) dropLocked(ds []string) []journalEntry {
	var unused []journalEntry
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		e := r.refs[d]
		if e == nil {
			continue
		}
		if e.users--; e.users <= 0 {
			delete(r.refs, d)
			unused = append(unused, journalEntry{path: d, file: e.file, sum: e.sum})
		}
	}
	return unused
}

// removeLocked removes placeholders, deepest first, that are still what
// agentbox made: an empty directory, or a file with the content it wrote.
// One that something was put into, or that a link was put in the way of,
// stays (the sandbox's own litter stays).
func (r *placeholderRegistry) removeLocked(es []journalEntry) {
	sort.SliceStable(es, func(i, j int) bool { return depth(es[i].path) > depth(es[j].path) })
	for _, e := range es {
		if r.refs[e.path] != nil {
			continue // in use again by this process
		}
		if e.file && !hasContentSum(e.path, e.sum) {
			continue
		}
		if fi, err := os.Lstat(e.path); !e.file && (err != nil || !fi.IsDir() || fi.Mode().Perm() != placeholderPerm) {
			continue // not the directory agentbox made (rmdir would also refuse a full one)
		}
		_ = removePlaceholder(e.path, e.file)
	}
}

// removePlaceholder removes the placeholder p (see inParent).
func removePlaceholder(p string, file bool) error {
	flags := unix.AT_REMOVEDIR
	if file {
		flags = 0
	}
	return inParent(p, func(dir int, name string) error { return unix.Unlinkat(dir, name, flags) })
}

// inParent runs fn on p's directory, opened without following a symbolic
// link anywhere on the way, and p's last name. agentbox makes and removes
// placeholders unconfined, and a sandbox on the same writable root under
// another policy may have replaced a directory on the way with a link to a
// host directory: following it would create or delete the host's entry of
// that name. The paths are the resolved ones, so a link on the way is never
// the caller's own.
func inParent(p string, fn func(dir int, name string) error) error {
	dir, name := filepath.Split(p)
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return &fs.PathError{Op: "open parent", Path: p, Err: err}
	}
	defer unix.Close(fd)
	if err := fn(fd, name); err != nil {
		return &fs.PathError{Op: "placeholder", Path: p, Err: err}
	}
	return nil
}

// writeNewFile creates name in dir, exclusively, with content.
func writeNewFile(dir int, name string, content []byte) error {
	fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	_, werr := f.Write(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = unix.Unlinkat(dir, name, 0)
	}
	return werr
}
