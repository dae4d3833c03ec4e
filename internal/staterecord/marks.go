package staterecord

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Marks is a set of keys that every agentbox process of the user shares,
// kept in the state directory as a directory of empty files, one a key,
// named by a hash of it: asking for a key is one lstat, cheap enough for
// a question asked at every read of a stream. Keys are never removed.
type Marks struct {
	dir string
}

// OpenMarks returns the set name in the state directory (nothing is
// created until a key is added); false where there is no state directory.
func OpenMarks(name string) (*Marks, bool) {
	dir, err := paths.StateDir()
	if err != nil {
		return nil, false
	}
	return &Marks{dir: filepath.Join(dir, name)}, true
}

func (m *Marks) file(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(m.dir, hex.EncodeToString(h[:16]))
}

// Add adds key, creating the state directory and the set (mode 0700) if
// it must; once it returns, Has(key) is true in every process.
func (m *Marks) Add(key string) error {
	if err := paths.Ensure(m.dir); err != nil {
		return err
	}
	f, err := os.OpenFile(m.file(key), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// Has reports whether key was added; true where that cannot be told (the
// set cannot be read), for callers to whom a key too many is the safe
// side.
func (m *Marks) Has(key string) bool {
	_, err := os.Lstat(m.file(key))
	return !errors.Is(err, fs.ErrNotExist)
}
