// Package liveroots records, in agentbox's state directory, the writable
// roots of the sandboxes of this user that are running now, in any
// agentbox process.
//
// A file agentbox keeps from every sandbox (a run's audit log, its
// manifest: internal/keptfiles) is kept from the sandboxes that start
// after it is recorded; one already running keeps the write its roots
// gave it. Red-team round 61 forged an entry in an agent's audit log, and
// rewrote its manifest for the next run, from an `agentbox exec --write`
// started before the run. A run asks Running for the roots of the
// sandboxes still running, after it records its files, and refuses a file
// inside one.
//
// Each sandbox's entry is a file holding its roots, one per line, on
// which its agentbox process holds an exclusive flock while the sandbox
// runs: the kernel drops the lock when the process dies, so an entry
// whose lock can be taken is stale. A sandbox registers before it reads
// the record of kept files, and a run records its files before it asks:
// of a sandbox starting meanwhile, one of the two sees the other.
package liveroots

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// dirName is the entries' directory in the state directory.
const dirName = "live-sandboxes"

// Entry is a running sandbox's registration.
type Entry struct {
	f    *os.File
	path string
	once sync.Once
}

// Add registers a sandbox whose writable roots are roots (resolved). It
// returns nil, and no error, without a state directory or roots.
func Add(roots []string) (*Entry, error) {
	if len(roots) == 0 {
		return nil, nil
	}
	dir, err := entriesDir(true)
	if err != nil || dir == "" {
		return nil, err
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	name := hex.EncodeToString(id[:])
	// Made and locked under a name readers skip, then renamed: a reader
	// never sees the entry unlocked.
	tmp := filepath.Join(dir, "."+name)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range roots {
		b.WriteString(strconv.Quote(r))
		b.WriteByte('\n')
	}
	err = lockEntry(f, true)
	if err == nil {
		_, err = f.WriteString(b.String())
	}
	final := filepath.Join(dir, name)
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return &Entry{f: f, path: final}, nil
}

// Done removes the registration: the sandbox's tree is gone. A nil Entry
// is done already.
func (e *Entry) Done() {
	if e == nil {
		return
	}
	e.once.Do(func() {
		os.Remove(e.path)
		e.f.Close()
	})
}

// Running returns the writable roots of the sandboxes running now, and
// removes the entries of those that are not.
func Running() ([]string, error) {
	dir, err := entriesDir(false)
	if err != nil || dir == "" {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") {
			continue // being made
		}
		roots, live := readEntry(filepath.Join(dir, de.Name()))
		if live {
			out = append(out, roots...)
		}
	}
	return out, nil
}

// readEntry returns an entry's roots, and whether its sandbox runs; a
// stale entry is removed.
func readEntry(p string) ([]string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if lockEntry(f, false) == nil { // nobody holds it: stale
		os.Remove(p)
		return nil, false
	}
	var roots []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, err := strconv.Unquote(sc.Text()); err == nil && filepath.IsAbs(r) {
			roots = append(roots, r)
		}
	}
	return roots, true
}

// entriesDir returns the entries' directory, made if make; "" without a
// state directory.
func entriesDir(make bool) (string, error) {
	state, err := paths.StateDir()
	if err != nil {
		return "", nil
	}
	dir := filepath.Join(state, dirName)
	if make {
		if _, ok := ensured.Load(dir); !ok {
			if err := paths.Ensure(dir); err != nil {
				return "", err
			}
			ensured.Store(dir, true)
		}
	}
	return dir, nil
}

// ensured are the directories made and checked already by this process:
// one check, not one a sandbox.
var ensured sync.Map
