//go:build linux

package linux

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// placeholderRegistry counts the sandboxes that use each placeholder this
// process created, so that one sandbox ending never removes a mountpoint
// another still relies on.
type placeholderRegistry struct {
	mu   sync.Mutex
	refs map[string]*placeholder
}

// placeholder is one directory or file the registry created.
type placeholder struct {
	users int
	file  bool
}

var placeholders placeholderRegistry

// take adds a user to the placeholder p, recording it if it is new.
func (r *placeholderRegistry) take(p string, file bool) {
	if r.refs == nil {
		r.refs = make(map[string]*placeholder)
	}
	e := r.refs[p]
	if e == nil {
		e = &placeholder{file: file}
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
		err := inParent(d, func(dir int, name string) error { return unix.Mkdirat(dir, name, 0o700) })
		if err != nil && !(errors.Is(err, fs.ErrExist) && r.refs[d] != nil) {
			r.releaseLocked(taken)
			return nil, err
		}
		r.take(d, false)
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
	if r.refs[p] == nil {
		if err := inParent(p, func(dir int, name string) error { return writeNewFile(dir, name, content) }); err != nil {
			return nil, err
		}
	}
	r.take(p, true)
	return []string{p}, nil
}

// release drops references and removes unused placeholders, deepest first,
// when they are still empty.
func (r *placeholderRegistry) release(ds []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.releaseLocked(ds)
}

func (r *placeholderRegistry) releaseLocked(ds []string) {
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		e := r.refs[d]
		if e == nil {
			continue
		}
		if e.users--; e.users <= 0 {
			delete(r.refs, d)
			// Fails, harmlessly, if something was put inside or a link
			// was put in its way; the sandbox's own litter stays.
			_ = removePlaceholder(d, e.file)
		}
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
