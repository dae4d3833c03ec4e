package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Made lists the directories MkdirAll created, outermost first, so that a
// caller that then refuses the place can take them away again.
type Made []string

// MkdirAll is os.MkdirAll that reports the directories it created. On
// failure it removes those it made and returns none.
func MkdirAll(dir string, perm fs.FileMode) (Made, error) {
	var made Made
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(Made{d}, made...)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		made.Remove()
		return nil, err
	}
	return made, nil
}

// Remove removes the directories m lists, innermost first, each only while
// it is empty: what someone has put in one since is kept, with the
// directories that lead to it.
func (m Made) Remove() {
	for i := len(m) - 1; i >= 0; i-- {
		if err := os.Remove(m[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}
