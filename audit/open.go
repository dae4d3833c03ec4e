package audit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// openRegular opens path with flag (and perm, when it creates), refusing
// a symbolic link in its last component and anything but a regular file:
// the open itself does not wait (a FIFO put in a log's place would hang
// the reader in open(2), and whoever reads it after), and the check is
// made on the file opened, not on its name.
func openRegular(path string, flag int, perm os.FileMode, what string) (*os.File, error) {
	f, err := os.OpenFile(path, flag|openNoFollow|openNonBlock, perm)
	if isSymlinkErr(err) {
		return nil, &notRegularError{fmt.Sprintf("audit: %s is a symbolic link; name the file itself", path)}
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &notRegularError{fmt.Sprintf("audit: %s is %s, not %s", path, fileKind(fi.Mode()), what)}
	}
	return f, nil
}

// notRegularError is openRegular's refusal of a link or a file that is not
// a regular one.
type notRegularError struct{ msg string }

func (e *notRegularError) Error() string { return e.msg }

// readRegular reads the regular file at path, refusing one longer than
// max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY, 0, "a regular file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("audit: %s is longer than %d bytes", path, max)
	}
	return data, nil
}

// stateKeys are the paths under which the state directory may hold the
// checkpoints of the log at path: its path with links resolved (where
// writers file them) and, when a link is on the way, its path as named.
// A log whose directory was swapped for a link to another one resolves
// elsewhere now; its checkpoints are still under the name. A name with
// ".." in it names no one log (the kernel climbs from where a link leads,
// filepath.Abs from the link), so it has no key of its own.
func stateKeys(path string) ([]string, error) {
	abs, err := canonicalPath(path)
	if err != nil {
		return nil, err
	}
	named, err := filepath.Abs(path)
	if err != nil || named == abs || slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
		return []string{abs}, nil
	}
	return []string{abs, named}, nil
}
