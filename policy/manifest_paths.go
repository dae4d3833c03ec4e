package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds symlink expansions in ResolvePath, like the kernel's
// ELOOP limit.
const maxSymlinks = 40

// ErrTooManySymlinks is returned by ResolvePath for a symlink loop.
var ErrTooManySymlinks = errors.New("too many levels of symbolic links")

// ResolvePath resolves the symlinks of an absolute path as the filesystem is
// now. Unlike filepath.EvalSymlinks it accepts a path that does not exist
// (yet): it resolves the longest existing prefix, following a dangling
// symlink to where its target would be, and appends the rest, so that a rule
// for a missing path still lands on the location the kernel would use once
// the path is created.
func ResolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("resolve %q: not an absolute path", p)
	}
	resolved := "/"
	rest := splitPath(p)
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing exists from here on, so nothing more can be a link.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("resolve %s: %w", p, ErrTooManySymlinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
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
