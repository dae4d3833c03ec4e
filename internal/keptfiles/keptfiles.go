// Package keptfiles remembers, for every agentbox process of one user, the
// files agentbox was handed or made that no sandbox may touch: the vaults
// and passphrase files named on its command lines (no sandbox may read
// them), the manifests it ran and the audit logs of those runs (no sandbox
// may rewrite them). Without the record only the run that names such a
// file would keep it from its agent: any other sandbox, another agent's
// run or a plain exec, would read a project's passphrase file, rewrite
// another agent's manifest (red-team round 48) or append a forged entry,
// chained as the log's own are, to another agent's audit log while its
// run has it open (round 50).
//
// The record is one file in the state directory (internal/staterecord),
// one entry per line: "secret PATH", "policy PATH" or "log PATH", PATH
// quoted as in Go.
package keptfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/staterecord"
)

// Kind says what no sandbox may do with a kept file.
type Kind string

const (
	// Secret files are read by no sandbox (vaults, passphrase files).
	Secret Kind = "secret"
	// Policy files are written by no sandbox (manifests).
	Policy Kind = "policy"
	// Log files are written by no sandbox (the audit logs of runs).
	Log Kind = "log"
)

// fileName is the record's name in the state directory.
const fileName = "kept-files"

// pruneAt is the number of entries at which those whose file is gone are
// dropped, so that the record stays small.
const pruneAt = 512

// Record adds files (made absolute, and resolved where they exist) to the
// record as kind. It creates the state directory if it must.
func Record(kind Kind, files ...string) error {
	var lines []string
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
		lines = append(lines, string(kind)+" "+strconv.Quote(p))
	}
	if err := staterecord.Add(fileName, lines, pruneAt, gone); err != nil {
		return fmt.Errorf("record the files to keep out of sandboxes: %w", err)
	}
	return nil
}

// gone reports whether the file of a record line no longer exists.
func gone(line string) bool {
	_, p, ok := parse(line)
	if !ok {
		return true
	}
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// parse reads one line of the record; ok is false for a line it does not
// understand (skipped).
func parse(line string) (Kind, string, bool) {
	kind, quoted, ok := strings.Cut(line, " ")
	p, err := strconv.Unquote(quoted)
	if !ok || err != nil || !filepath.IsAbs(p) || (Kind(kind) != Secret && Kind(kind) != Policy && Kind(kind) != Log) {
		return "", "", false
	}
	return Kind(kind), filepath.Clean(p), true
}

// Load returns the recorded files no sandbox may read (Secret) and those
// none may write (Policy, Log): none without a state directory or a
// record, an error where the record cannot be read.
func Load() (secrets, readOnly []string, err error) {
	lines, err := staterecord.Read(fileName)
	if err != nil {
		return nil, nil, fmt.Errorf("read the files to keep out of sandboxes: %w", err)
	}
	for _, l := range lines {
		switch kind, p, ok := parse(l); {
		case !ok:
		case kind == Secret:
			secrets = append(secrets, p)
		default:
			readOnly = append(readOnly, p)
		}
	}
	return secrets, readOnly, nil
}
