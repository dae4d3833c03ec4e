//go:build linux

package linux

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// journalEntry is one placeholder: a directory, or a file whose content
// has the SHA-256 sum.
type journalEntry struct {
	path string
	file bool
	sum  string
}

func contentSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// hasContentSum reports whether the file p (not followed if a link) has
// content whose SHA-256 is sum: a hold file still as agentbox wrote it.
func hasContentSum(p, sum string) bool {
	var b []byte
	err := inParent(p, func(dir int, name string) error {
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<16 {
			return errors.New("not a hold file")
		}
		b, err = io.ReadAll(io.LimitReader(f, 1<<16))
		return err
	})
	return err == nil && contentSum(b) == sum
}

// stateStore coordinates placeholders between the agentbox processes of
// one user (see placeholderRegistry). It keeps the lock and the journal in
// agentbox's state directory,
// which every sandbox's deny-read set hides: no command can hold the lock
// or write the journal. Without a state directory nothing is removed
// (placeholders stay behind rather than be removed under a sandbox that
// relies on them).
type stateStore struct {
	dir  string
	lock *os.File // while this process holds the lock
}

func (s *stateStore) lockPath() string    { return filepath.Join(s.dir, "placeholders.lock") }
func (s *stateStore) journalPath() string { return filepath.Join(s.dir, "placeholders.journal") }

// setLock sets an open-file-description lock on the whole lock file: an
// upgrade that fails leaves the shared lock in place (flock(2) would drop
// it first).
func (s *stateStore) setLock(typ int16, wait bool) error {
	cmd := unix.F_OFD_SETLK
	if wait {
		cmd = unix.F_OFD_SETLKW
	}
	lk := unix.Flock_t{Type: typ, Whence: 0}
	for {
		err := unix.FcntlFlock(s.lock.Fd(), cmd, &lk)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// acquire takes the lock shared. If no other process holds it, it first
// calls remove, with the lock held exclusively, on the journal's entries
// (what processes before left) and empties the journal.
func (s *stateStore) acquire(remove func([]journalEntry)) {
	dir, err := paths.StateDir()
	if err == nil {
		err = paths.Ensure(dir)
	}
	if err != nil {
		return
	}
	s.dir = dir
	f, err := os.OpenFile(s.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	s.lock = f
	if s.setLock(unix.F_WRLCK, false) == nil {
		if left := s.readJournal(); len(left) > 0 {
			remove(left)
			s.writeJournal(nil)
		}
	}
	if err := s.setLock(unix.F_RDLCK, true); err != nil {
		f.Close()
		s.lock = nil
	}
}

// record adds an entry to the journal, before the placeholder exists.
func (s *stateStore) record(e journalEntry) error {
	if s.lock == nil {
		return nil // nothing will be removed: nothing to remember
	}
	f, err := os.OpenFile(s.journalPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("placeholder journal: %w", err)
	}
	_, werr := f.WriteString(e.line())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("placeholder journal: %w", werr)
	}
	return nil
}

// release: if no other process holds the lock, it calls remove, with the
// lock held exclusively, on the journal's entries not in keep (the
// placeholders this process still uses) and leaves only keep in the
// journal. With last, it then gives the lock up; otherwise it holds it
// shared again.
func (s *stateStore) release(last bool, keep []journalEntry, remove func([]journalEntry)) {
	if s.lock == nil {
		return
	}
	if s.setLock(unix.F_WRLCK, false) == nil {
		kept := make(map[string]bool, len(keep))
		for _, e := range keep {
			kept[e.path] = true
		}
		var gone []journalEntry
		all := s.readJournal()
		for _, e := range all {
			if !kept[e.path] {
				gone = append(gone, e)
			}
		}
		if len(gone) > 0 {
			remove(gone)
		}
		if len(gone) > 0 || len(all) != len(keep) {
			s.writeJournal(keep) // (a sandbox that made no placeholder writes nothing)
		}
		if !last {
			if err := s.setLock(unix.F_RDLCK, true); err == nil {
				return
			}
		}
	} else if !last {
		return
	}
	s.lock.Close()
	s.lock = nil
}

// line encodes the entry as a journal line: kind, sum, quoted path.
func (e journalEntry) line() string {
	kind, sum := "d", "-"
	if e.file {
		kind, sum = "f", e.sum
	}
	return kind + " " + sum + " " + strconv.Quote(e.path) + "\n"
}

// readJournal parses the journal; lines it cannot read are skipped.
func (s *stateStore) readJournal() []journalEntry {
	b, err := os.ReadFile(s.journalPath())
	if err != nil {
		return nil
	}
	var out []journalEntry
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		kind, rest, ok := strings.Cut(string(l), " ")
		if !ok {
			continue
		}
		sum, quoted, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		p, err := strconv.Unquote(quoted)
		if err != nil || !filepath.IsAbs(p) || filepath.Clean(p) != p || (kind != "d" && kind != "f") {
			continue
		}
		out = append(out, journalEntry{path: p, file: kind == "f", sum: sum})
	}
	return out
}

func (s *stateStore) writeJournal(es []journalEntry) {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.line())
	}
	tmp := s.journalPath() + ".new"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		_ = os.Rename(tmp, s.journalPath())
	}
}
