//go:build linux

package linux

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ownerperm"
)

// placeholderRegistry tracks the paths the sandboxes of this process rely
// on inside writable roots: the placeholders that hold protected names,
// masked deny paths, read-only protected files. A placeholder is a
// mountpoint in every sandbox that uses it, each in its own mount
// namespace, and removing it on the host detaches those mounts (Linux lets
// one namespace remove another's mountpoint), after which the command
// could create the protected name after all. So a placeholder is removed
// only when no sandbox of any agentbox process of the user relies on it.
//
// Within the process a count per path says so; across processes, a
// stateStore: each process holds a shared lock on every path it relies on,
// and a placeholder is removed only under that path's exclusive lock. Every
// placeholder is recorded in the store's journal before it is made, so
// one that could not be removed yet (another process uses it, or a killed
// agentbox left it) is removed by the next process that ends a sandbox.
type placeholderRegistry struct {
	mu     sync.Mutex
	users  map[string]int // sandboxes of this process relying on each path
	active int            // sandboxes of this process between begin and end
	store  *stateStore
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
		r.store.open()
		r.store.sweep(r.users) // what processes before left
	}
}

// end releases the paths ds a sandbox relied on, and removes the
// placeholders no sandbox of any process relies on any more.
func (r *placeholderRegistry) end(ds []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range ds {
		if r.users[d]--; r.users[d] <= 0 {
			delete(r.users, d)
			r.store.unlock(d)
		}
	}
	r.store.sweep(r.users)
	if r.active--; r.active == 0 {
		r.store.close()
	}
}

// hold records that a sandbox relies on p (whether it exists or not, and
// whoever made it), before the plan looks at it: from then on no agentbox
// process removes it. It returns p, to be released with end.
func (r *placeholderRegistry) hold(p string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holdLocked(p)
}

func (r *placeholderRegistry) holdLocked(p string) []string {
	if r.users == nil {
		r.users = make(map[string]int)
	}
	if r.users[p]++; r.users[p] == 1 {
		r.store.lockShared(p)
	}
	return []string{p}
}

// create makes the missing directories (outermost first), each held and
// journaled before it is made. One that another process made meanwhile is
// used as it is.
func (r *placeholderRegistry) create(missing []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var taken []string
	for _, d := range missing {
		taken = append(taken, r.holdLocked(d)...)
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			continue
		}
		// Journaled first: a process killed right after leaves nothing that
		// no one knows of.
		err := r.store.record(journalEntry{path: d})
		if err == nil {
			err = inParent(d, func(dir int, name string) error { return unix.Mkdirat(dir, name, placeholderPerm) })
		}
		if err != nil && !(errors.Is(err, fs.ErrExist) && isDir(d)) {
			return taken, err
		}
	}
	return taken, nil
}

// createFile creates the file p with content unless it exists, held and
// journaled before it is made.
func (r *placeholderRegistry) createFile(p string, content []byte) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	taken := r.holdLocked(p)
	if _, err := os.Lstat(p); err == nil {
		return taken, nil
	}
	err := r.store.record(journalEntry{path: p, file: true, sum: contentSum(content)})
	if err == nil {
		err = inParent(p, func(dir int, name string) error { return writeNewFile(dir, name, content) })
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return taken, err
	}
	return taken, nil
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// removePlaceholder removes e if it is still what agentbox made: an empty
// directory with placeholderPerm, or a file with the content it wrote. It
// reports whether the journal must keep it: a directory that holds another
// placeholder not removed yet.
func removePlaceholder(e journalEntry, kept func(string) bool) (keep bool) {
	// A command may have taken the search permission off a directory of
	// the caller's on the way (chmod 000 of its writable root): agentbox
	// gives it back for the moment (ownerperm). Where even that fails, the entry
	// stays in the journal for a later run.
	if _, err := os.Lstat(e.path); errors.Is(err, fs.ErrPermission) {
		undo, err := ownerperm.Searchable(filepath.Dir(e.path))
		defer undo()
		if err != nil {
			return true
		}
	}
	if e.file {
		if hasContentSum(e.path, e.sum) {
			_ = inParent(e.path, func(dir int, name string) error { return unix.Unlinkat(dir, name, 0) })
		}
		return false // removed, or no longer agentbox's: the user's now
	}
	fi, err := os.Lstat(e.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true // cannot tell yet: a later run tries again
	}
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != placeholderPerm {
		return false
	}
	err = inParent(e.path, func(dir int, name string) error { return unix.Unlinkat(dir, name, unix.AT_REMOVEDIR) })
	// A full one is the sandbox's litter, which stays, unless what fills it
	// is a placeholder that goes later.
	return errors.Is(err, unix.ENOTEMPTY) && kept(e.path)
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
	err = fn(fd, name)
	if errors.Is(err, unix.EACCES) {
		err = withOwnerWrite(fd, func() error { return fn(fd, name) })
	}
	if err != nil {
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

// withOwnerWrite runs fn with the owner's write permission added to the
// directory dir for the moment, if the caller owns it: a command could add
// it too, so a name there must be held (mayCreateIn), and the placeholder
// taken away again (ownerperm).
func withOwnerWrite(dir int, fn func() error) error {
	err := ownerperm.With(dir, unix.S_IWUSR, fn)
	if errors.Is(err, ownerperm.ErrNotOwner) {
		return unix.EACCES
	}
	return err
}
