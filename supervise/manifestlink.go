package supervise

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/agentbox-dev/agentbox/internal/liveroots"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
)

// ManifestLinkError refuses a manifest named through a symbolic link that
// the agent could replace: the file it names is kept read-only, but the
// link, in a directory the agent may write, could be pointed at a
// manifest of the agent's making for the next run.
type ManifestLinkError struct {
	Manifest, Link, Root, Real string
}

func (e *ManifestLinkError) Error() string {
	return fmt.Sprintf("the manifest %s is named through the symbolic link %s, inside %s, which the agent may write: it could point the link at a manifest of its own for the next run; name the manifest by its real path, %s",
		e.Manifest, e.Link, e.Root, e.Real)
}

// SecretLinkError refuses a file no agent may read (a vault, its lock, a
// passphrase file) named through a symbolic link the agent could replace:
// the run hides the file where the link leads, but the agent could point
// the link at files of its own, so that the next run used its vault and
// hid nothing of the operator's.
type SecretLinkError struct {
	File, Link, Root, Real string
}

func (e *SecretLinkError) Error() string {
	return fmt.Sprintf("%s is named through the symbolic link %s, inside %s, which the agent may write: it could point the link at files of its own for the next run; name it by its real path, %s",
		e.File, e.Link, e.Root, e.Real)
}

// replaceableLink returns the first symbolic link on the way to the
// absolute path p whose directory lies in one of the writable roots and
// outside every read-only path, with the root; "" if none. roots and
// readOnly hold resolved paths; the links are those the kernel follows
// (paths.Resolve), each named by a path with no link in it.
func replaceableLink(p string, roots, readOnly []string) (link, root string) {
	r, _ := paths.Resolve(filepath.Clean(p))
	for _, l := range r.Links {
		for _, w := range roots {
			if paths.Within(filepath.Dir(l), w) && !paths.WithinAny(l, readOnly) {
				return l, w
			}
		}
	}
	return "", ""
}

// resolvedAll returns ps with symbolic links resolved, each kept as it is
// where it cannot be resolved.
func resolvedAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if r, err := policy.ResolvePath(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	return out
}

// RunningWriterError refuses a file a run keeps from every sandbox (its
// manifest, its audit log) that lies in a writable root of a sandbox
// running now: one started before the run, which the record of kept files
// does not reach. From there a command rewrote the manifest for the next
// run, and appended a forged entry, chained as the log's own, that the
// run then signed (red-team round 61).
type RunningWriterError struct {
	What, File, Root string
}

func (e *RunningWriterError) Error() string {
	return fmt.Sprintf("%s %s lies in %s, which a sandbox running now may write (it started before this run, so the file cannot be kept from it); wait for that command to end, or move the file out of %s",
		e.What, e.File, e.Root, e.Root)
}

// refuseRunningWriters returns a RunningWriterError for the first of kept
// (file: what it is) inside the writable roots of the sandboxes running
// now. The files are recorded as kept before: a sandbox starting meanwhile
// is either seen here or keeps out of them (liveroots).
func refuseRunningWriters(kept map[string]string) error {
	if len(kept) == 0 {
		return nil
	}
	roots, err := liveroots.Running()
	if err != nil {
		return fmt.Errorf("read the record of running sandboxes: %w", err)
	}
	for _, f := range slices.Sorted(maps.Keys(kept)) {
		real, err := policy.ResolvePath(f)
		if err != nil {
			real = f
		}
		for _, r := range roots {
			if paths.Within(real, r) || paths.Within(f, r) {
				return &RunningWriterError{What: kept[f], File: f, Root: r}
			}
		}
	}
	return nil
}
