package audit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// A writer shows the writers that open its log after it that it is still
// writing: a mark of its own in the state directory, a file it holds an
// exclusive flock(2) on from Open to Close. The writers' lock beside the
// log cannot say it: anyone who may open the lock file can hold it, and a
// writer that takes such a holder for a writer still writing takes the
// entries past the log's last checkpoint for that writer's, not signed
// yet, and signs them with its own. The state directory is the user's
// alone, as is the signing key in it.

// liveSuffix names, beside a log's checkpoints in the state directory, the
// directory of its live writers' marks.
const liveSuffix = ".writers"

// markPrefix starts the name of a mark once it is locked; a mark is made
// under a temporary name, so no other writer finds it unlocked and takes
// it for one a writer left behind.
const markPrefix = "w-"

// liveMark is a writer's mark.
type liveMark struct {
	f    *os.File
	path string
}

// markLive makes the mark of a writer of the log whose state-directory
// checkpoints are at ckpt.
func markLive(ckpt string) (*liveMark, error) {
	dir := strings.TrimSuffix(ckpt, CheckpointSuffix) + liveSuffix
	if err := paths.Ensure(dir); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	f, err := os.CreateTemp(dir, ".new-")
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	fail := func(err error) (*liveMark, error) {
		os.Remove(f.Name())
		f.Close()
		return nil, fmt.Errorf("audit: mark this writer of the log in %s: %w", dir, err)
	}
	if ok, err := tryLockFile(f); err != nil {
		return fail(err)
	} else if !ok {
		return fail(errors.New("locked by another process"))
	}
	var id [8]byte
	rand.Read(id[:])
	m := &liveMark{f: f, path: filepath.Join(dir, markPrefix+hex.EncodeToString(id[:]))}
	if err := os.Rename(f.Name(), m.path); err != nil {
		return fail(err)
	}
	return m, nil
}

// othersLive reports whether another writer than m has the log open. It
// removes the marks of writers that ended without removing theirs (a
// crash, a SIGKILL). What it cannot read counts as no writer: the opening
// writer then names entries past the last checkpoint as unsigned, which
// errs on the side of saying so.
func (m *liveMark) othersLive() bool {
	dir := filepath.Dir(m.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !strings.HasPrefix(e.Name(), markPrefix) || p == m.path {
			continue
		}
		f, err := openRegular(p, os.O_RDONLY, 0, "a writer's mark")
		if err != nil {
			continue // its writer closed the log meanwhile, or not a mark
		}
		ok, err := tryLockFile(f)
		if ok {
			os.Remove(p) // left behind
		}
		f.Close()
		if err == nil && !ok {
			return true
		}
	}
	return false
}

// close removes the mark: its writer has signed what it wrote.
func (m *liveMark) close() error {
	if m == nil {
		return nil
	}
	return errors.Join(os.Remove(m.path), m.f.Close())
}
