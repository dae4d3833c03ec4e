package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// ErrWritableRootMissing: a writable root does not exist (or is neither a
// directory nor a regular file), so the sandbox has nothing to mount there.
var ErrWritableRootMissing = errors.New("writable root missing")

// ErrAuditLogWritable: the audit log would be inside a writable root, where
// the agent could rewrite its own record.
var ErrAuditLogWritable = errors.New("audit log inside a writable root")

// ErrRootWritable: "/" named as a writable root.
var ErrRootWritable = errors.New("/ cannot be a writable root")

// CheckWritableRoot refuses a writable root that no run can use: "/" makes
// the whole host writable, so the write confinement means nothing and the
// audit log has nowhere the agent cannot rewrite it. p is absolute and clean.
// The library's Config validation and the manifest share it.
func CheckWritableRoot(p string) error {
	if p == "/" {
		return fmt.Errorf("%w: it would make the whole host writable, leaving no place the agent cannot rewrite (its audit log included); name the directories it needs to write", ErrRootWritable)
	}
	return nil
}

// AuditLogPath is the audit log a run of m writes: audit.log_path, else
// NAME.log in the logs directory of agentbox's state directory stateDir
// ("" when stateDir is "").
func (m *Manifest) AuditLogPath(stateDir string) string {
	if m.Audit.LogPath != "" {
		return m.Audit.LogPath
	}
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "logs", m.Name+".log")
}

// CheckRunnable reports what a run of m refuses on this machine as it is
// now, each problem at the position of the entry to change, as a
// *ManifestErrors: a writable root that does not exist, or is neither a
// directory nor a regular file (ErrWritableRootMissing), and an audit log inside a writable
// root (ErrAuditLogWritable). stateDir is agentbox's state directory, which
// holds the default audit log ("" skips that case). validate and run both
// call it, so that validate passes what run accepts.
func (m *Manifest) CheckRunnable(stateDir string) error {
	var errs []ManifestError
	at := func(pos Position, err error, format string, args ...any) {
		errs = append(errs, ManifestError{File: m.File, Line: pos.Line, Col: pos.Col, Msg: fmt.Sprintf(format, args...), Err: err})
	}
	type root struct {
		rule     PathRule
		resolved string
	}
	var roots []root
	for _, r := range m.Permissions.Filesystem.Write {
		fi, err := os.Stat(r.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			at(r.Pos, ErrWritableRootMissing, "permissions.filesystem.write: %s does not exist; create the directory before the run, or remove the entry", r.Path)
			continue
		case err != nil:
			at(r.Pos, err, "permissions.filesystem.write: %s cannot be checked (%v); make it a directory agentbox can reach, or remove the entry", r.Path, err)
			continue
		case !fi.IsDir() && !fi.Mode().IsRegular():
			at(r.Pos, ErrWritableRootMissing, "permissions.filesystem.write: %s is neither a directory nor a regular file; name the directory or file the agent writes", r.Path)
			continue
		}
		rp, err := ResolvePath(r.Path)
		if err != nil {
			at(r.Pos, err, "permissions.filesystem.write: %v", err)
			continue
		}
		roots = append(roots, root{r, rp})
	}
	if logPath := m.AuditLogPath(stateDir); logPath != "" {
		resolved, err := ResolvePath(logPath)
		if err != nil {
			resolved = logPath
		}
		for _, w := range roots {
			if !paths.Within(resolved, w.resolved) {
				continue
			}
			if m.Audit.LogPath != "" {
				at(m.Audit.LogPathPos, ErrAuditLogWritable, "audit.log_path: %s is inside the writable root %s (line %d), where the agent could rewrite its own log; put the log outside every writable root",
					logPath, w.rule.Path, w.rule.Pos.Line)
			} else {
				at(w.rule.Pos, ErrAuditLogWritable, "permissions.filesystem.write: %s holds the default audit log %s, where the agent could rewrite it; set audit.log_path outside every writable root",
					w.rule.Path, logPath)
			}
			break
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &ManifestErrors{List: sortErrors(errs)}
}
