package policy

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// ErrTooManySymlinks is returned by ResolvePath for a symlink loop.
var ErrTooManySymlinks = paths.ErrTooManyLinks

// ResolvePath resolves the symlinks of an absolute path as the filesystem is
// now. Unlike filepath.EvalSymlinks it accepts a path that does not exist
// (yet): it resolves the longest existing prefix, following a dangling
// symlink to where its target would be, and appends the rest, so that a rule
// for a missing path still lands on the location the kernel would use once
// the path is created (paths.Resolve).
func ResolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("resolve %q: not an absolute path", p)
	}
	r, err := paths.Resolve(p)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	return r.Target, nil
}

// ResolvedPaths are a manifest's filesystem rules with symlinks resolved, as
// of the moment Resolve ran. Deny holds each denied path both as written
// (cleaned) and resolved, so that neither name reaches it.
type ResolvedPaths struct {
	Read  []string
	Write []string
	Deny  []string
}

// Resolve resolves the symlinks of every filesystem rule. Call it when the
// agent starts, not when the manifest is loaded: links may change between.
// Errors name the rule's position in the manifest.
func (m *Manifest) Resolve() (ResolvedPaths, error) {
	var out ResolvedPaths
	var errs []error
	resolve := func(rules []PathRule, keepLexical bool) []string {
		var list []string
		seen := map[string]bool{}
		add := func(p string) {
			if !seen[p] {
				seen[p] = true
				list = append(list, p)
			}
		}
		for _, r := range rules {
			if keepLexical {
				add(r.Path)
			}
			rp, err := ResolvePath(r.Path)
			if err != nil {
				errs = append(errs, ManifestError{File: m.File, Line: r.Pos.Line, Col: r.Pos.Col, Msg: err.Error(), Err: err})
				continue
			}
			add(rp)
		}
		return list
	}
	fsp := m.Permissions.Filesystem
	out.Read = resolve(fsp.Read, false)
	out.Write = resolve(fsp.Write, false)
	out.Deny = resolve(fsp.Deny, true)
	return out, errors.Join(errs...)
}
