package supervise

import (
	"fmt"
	"path/filepath"

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
