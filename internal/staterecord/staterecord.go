// Package staterecord keeps a small record of lines in agentbox's state
// directory, shared by every agentbox process of the user: read under a
// shared lock, added to under an exclusive one, pruned of stale lines once
// it grows past a bound. The granted writable roots and the kept files
// (vaults, passphrase files, manifests) are such records.
package staterecord

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

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Read returns the lines of the record name: none without a state
// directory or a record, an error where one exists that cannot be read.
func Read(name string) ([]string, error) {
	dir, err := paths.StateDir()
	if err != nil {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := lock(f, false); err != nil {
		return nil, err
	}
	return readLines(f)
}

// Add appends to the record name the lines it does not hold yet, creating
// the state directory and the record (mode 0600) if it must. Once the
// record would reach pruneAt lines, those stale reports are dropped first
// and the record is rewritten in place.
func Add(name string, lines []string, pruneAt int, stale func(string) bool) error {
	if len(lines) == 0 {
		return nil
	}
	dir, err := paths.StateDir()
	if err == nil {
		err = paths.Ensure(dir)
	}
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lock(f, true); err != nil {
		return err
	}
	known, err := readLines(f)
	if err != nil {
		return err
	}
	var fresh []string
	for _, l := range lines {
		if !slices.Contains(known, l) && !slices.Contains(fresh, l) {
			fresh = append(fresh, l)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	all := append(known, fresh...)
	if len(all) < pruneAt {
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			return err
		}
		_, err := f.Write(joinLines(fresh))
		return err
	}
	all = slices.DeleteFunc(all, stale)
	// In place, cut to length after: a write that fails half-way leaves
	// old lines behind (the safe side), never an empty record.
	b := joinLines(all)
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		return err
	}
	return f.Sync()
}

func joinLines(lines []string) []byte {
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// readLines reads f from its start.
func readLines(f *os.File) ([]string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20) // a quoted path is at most a few KiB
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w (the record is damaged: remove it to start a new one, which forgets what it held)", f.Name(), err)
	}
	return out, nil
}
