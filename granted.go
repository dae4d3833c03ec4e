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
// directory. Entries whose directory is gone are dropped (a link planted
// there went with it).

// grantedFile is the record's name in the state directory: one resolved
// writable root per line.
const grantedFile = "granted-writable-roots"

// grantedPruneAt is the record's size at which entries whose directory no
// longer exists are dropped.
const grantedPruneAt = 512

// grantedRoots reads the record: none without a state directory or a
// record; an error when one exists that cannot be read.
func grantedRoots() ([]string, error) {
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
	var add []string
	for _, r := range roots {
		if !slices.Contains(known, r) && !slices.Contains(add, r) && !strings.ContainsRune(r, '\n') {
			add = append(add, r)
		}
	}
	if len(add) == 0 {
		return nil
	}
	all := append(known, add...)
	if len(all) >= grantedPruneAt {
		all = slices.DeleteFunc(all, func(r string) bool {
			_, err := os.Lstat(r)
			return os.IsNotExist(err)
		})
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("record writable roots: %w", err)
		}
		add = all
	}
	var buf bytes.Buffer
	for _, r := range add {
		buf.WriteString(r + "\n")
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

func readGranted(f *os.File) ([]string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r := sc.Text(); filepath.IsAbs(r) {
			out = append(out, r)
		}
	}
	return out, sc.Err()
}
