//go:build linux

package linux

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
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
// one user (see placeholderRegistry) through a lock file and a journal in
// agentbox's state directory, which every sandbox's deny-read set hides:
// no command can take a lock or write the journal.
//
// Each path a process relies on is a one-byte range of the lock file, at an
// offset hashed from the path, locked shared with an open-file-description
// lock (the process's own, released by the kernel if it dies). A
// placeholder is removed only by whoever takes its byte exclusively. Byte 0
// serialises changes to the journal. Two paths that share a byte only keep
// each other's placeholders a little longer.
//
// Without a state directory no lock can be had, and nothing is removed:
// placeholders stay behind rather than go from under a sandbox.
type stateStore struct {
	dir  string
	lock *os.File // while this process has a sandbox
}

func (s *stateStore) lockPath() string    { return filepath.Join(s.dir, "placeholders.lock") }
func (s *stateStore) journalPath() string { return filepath.Join(s.dir, "placeholders.journal") }

// lockOffset is p's byte in the lock file: never 0, the journal's.
func lockOffset(p string) int64 {
	h := fnv.New64a()
	h.Write([]byte(p))
	return int64(h.Sum64()>>2) + 1
}

// setLock sets (typ F_RDLCK, F_WRLCK or F_UNLCK) the lock on the byte at
// off, waiting for a conflicting one to go if wait is set.
func (s *stateStore) setLock(off int64, typ int16, wait bool) error {
	if s.lock == nil {
		return errors.New("no placeholder lock file")
	}
	cmd := unix.F_OFD_SETLK
	if wait {
		cmd = unix.F_OFD_SETLKW
	}
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: off, Len: 1}
	for {
		err := unix.FcntlFlock(s.lock.Fd(), cmd, &lk)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// open opens the lock file, if the state directory can be had.
func (s *stateStore) open() {
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
	// A file system without these locks (some network and FUSE ones) is
	// like having no state directory.
	probe := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Len: 1}
	if unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &probe) != nil {
		f.Close()
		return
	}
	s.lock = f
}

// close gives up every lock of this process.
func (s *stateStore) close() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// lockShared marks p as relied on by this process. It waits only while
// another process removes p.
func (s *stateStore) lockShared(p string) { _ = s.setLock(lockOffset(p), unix.F_RDLCK, true) }

// unlock marks p as no longer relied on by this process.
func (s *stateStore) unlock(p string) { _ = s.setLock(lockOffset(p), unix.F_UNLCK, false) }

// record adds an entry to the journal, before the placeholder exists.
func (s *stateStore) record(e journalEntry) error {
	if s.lock == nil {
		return nil // nothing will be removed: nothing to remember
	}
	if err := s.setLock(0, unix.F_WRLCK, true); err != nil {
		return nil // unjournaled, the placeholder is kept, as without a state directory
	}
	defer s.setLock(0, unix.F_UNLCK, false)
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

// sweep removes, deepest first, the journal's placeholders that neither
// this process (held) nor any other relies on, and leaves the rest in the
// journal.
func (s *stateStore) sweep(held map[string]int) {
	if s.lock == nil || s.setLock(0, unix.F_WRLCK, true) != nil {
		return
	}
	defer s.setLock(0, unix.F_UNLCK, false)
	all := s.readJournal()
	if len(all) == 0 {
		return
	}
	ours := make(map[int64]bool, len(held))
	for p := range held {
		ours[lockOffset(p)] = true
	}
	sort.SliceStable(all, func(i, j int) bool { return depth(all[i].path) > depth(all[j].path) })
	var keep []journalEntry
	kept := func(dir string) bool {
		for _, k := range keep {
			if strings.HasPrefix(k.path, dir+"/") {
				return true
			}
		}
		return false
	}
	for _, e := range all {
		off := lockOffset(e.path)
		switch {
		case ours[off] || s.setLock(off, unix.F_WRLCK, false) != nil:
			keep = append(keep, e) // relied on, here or by another process
		default:
			if removePlaceholder(e, kept) {
				keep = append(keep, e)
			}
			_ = s.setLock(off, unix.F_UNLCK, false)
		}
	}
	if len(keep) != len(all) {
		s.writeJournal(keep)
	}
}

// line encodes the entry as a journal line: kind, sum, quoted path.
func (e journalEntry) line() string {
	kind, sum := "d", "-"
	if e.file {
		kind, sum = "f", e.sum
	}
	return kind + " " + sum + " " + strconv.Quote(e.path) + "\n"
}

// readJournal parses the journal; lines it cannot read are skipped, and an
// entry recorded twice counts once.
func (s *stateStore) readJournal() []journalEntry {
	b, err := os.ReadFile(s.journalPath())
	if err != nil {
		return nil
	}
	var out []journalEntry
	seen := make(map[journalEntry]bool)
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
		e := journalEntry{path: p, file: kind == "f", sum: sum}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
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
