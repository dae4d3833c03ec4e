// Package keptfiles remembers, for every agentbox process of one user, the
// files agentbox was handed that no sandbox may touch: the vaults and
// passphrase files named on its command lines (no sandbox may read them)
// and the manifests it ran (no sandbox may rewrite them). Without the
// record only the run that names such a file would keep it from its
// agent: any other sandbox, another agent's run or a plain exec, would
// read a project's passphrase file or rewrite another agent's manifest.
// Found by red-team round 48.
//
// The record is one file in the state directory, one entry per line:
// "secret PATH" or "policy PATH", PATH quoted as in Go.
package keptfiles

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
	"strconv"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Kind says what no sandbox may do with a kept file.
type Kind string

const (
	// Secret files are read by no sandbox (vaults, passphrase files).
	Secret Kind = "secret"
	// Policy files are written by no sandbox (manifests).
	Policy Kind = "policy"
)

// fileName is the record's name in the state directory.
const fileName = "kept-files"

// pruneAt is the number of entries at which those whose file is gone are
// dropped, so that the record stays small.
const pruneAt = 512

type entry struct {
	kind Kind
	path string
}

func (e entry) line() string { return string(e.kind) + " " + strconv.Quote(e.path) + "\n" }

// Record adds files (made absolute, and resolved where they exist) to the
// record as kind. It creates the state directory if it must.
func Record(kind Kind, files ...string) error {
	var add []entry
	for _, f := range files {
		if f == "" {
			continue
		}
		p, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("keep %s out of sandboxes: %w", f, err)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		add = append(add, entry{kind, p})
	}
	if len(add) == 0 {
		return nil
	}
	dir, err := paths.StateDir()
	if err == nil {
		err = paths.Ensure(dir)
	}
	if err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, fileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	defer f.Close()
	if err := lock(f, true); err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	known, err := read(f)
	if err != nil {
		return err
	}
	var fresh []entry
	for _, e := range add {
		if !slices.Contains(known, e) && !slices.Contains(fresh, e) {
			fresh = append(fresh, e)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	all := append(known, fresh...)
	var buf bytes.Buffer
	if len(all) < pruneAt {
		for _, e := range fresh {
			buf.WriteString(e.line())
		}
		_, err := f.Seek(0, io.SeekEnd)
		if err == nil {
			_, err = f.Write(buf.Bytes())
		}
		if err != nil {
			return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
		}
		return nil
	}
	all = slices.DeleteFunc(all, func(e entry) bool {
		_, err := os.Lstat(e.path)
		return errors.Is(err, fs.ErrNotExist)
	})
	for _, e := range all {
		buf.WriteString(e.line())
	}
	// In place, cut to length after: a write that fails half-way leaves
	// old entries behind (the safe side), never an empty record.
	if _, err := f.WriteAt(buf.Bytes(), 0); err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	if err := f.Truncate(int64(buf.Len())); err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	return f.Sync()
}

// Load returns the recorded files of each kind: none without a state
// directory or a record, an error where the record cannot be read.
func Load() (secrets, policies []string, err error) {
	dir, err := paths.StateDir()
	if err != nil {
		return nil, nil, nil
	}
	f, err := os.Open(filepath.Join(dir, fileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the files to keep out of sandboxes: %w", err)
	}
	defer f.Close()
	if err := lock(f, false); err != nil {
		return nil, nil, fmt.Errorf("read the files to keep out of sandboxes: %w", err)
	}
	es, err := read(f)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range es {
		switch e.kind {
		case Secret:
			secrets = append(secrets, e.path)
		case Policy:
			policies = append(policies, e.path)
		}
	}
	return secrets, policies, nil
}

// read parses the record from its start; lines it does not understand are
// skipped.
func read(f *os.File) ([]entry, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kind, quoted, ok := strings.Cut(sc.Text(), " ")
		p, err := strconv.Unquote(quoted)
		if !ok || err != nil || !filepath.IsAbs(p) || (Kind(kind) != Secret && Kind(kind) != Policy) {
			continue
		}
		out = append(out, entry{Kind(kind), filepath.Clean(p)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w (the record is damaged: remove it to start a new one, which forgets the files kept before)", f.Name(), err)
	}
	return out, nil
}
