// Package policy holds agentbox's one policy model and the YAML manifest that
// declares it.
//
// This file and the other manifest*.go files load a manifest strictly: unknown
// keys, wrong types, duplicate keys and invalid values are all reported at
// once, each with its file, line and column. A loaded Manifest is validated
// and normalised (paths absolute and cleaned, host patterns canonical); it is
// the input the policy compiler turns into the library's Config.
//
// Precedence: deny always wins. A path under permissions.filesystem.deny is
// neither readable nor writable even when read or write lists it (or one of
// its parents); a host matched by permissions.network.deny is refused even
// when network.allow matches it; a tool matched by permissions.tools.deny is
// refused even when tools.allow matches it. The Manifest keeps deny lists
// separately so that the compiled policy can apply them last.
package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// MaxManifestSize is the largest manifest file LoadManifest reads.
const MaxManifestSize = 1 << 20

// maxErrors bounds how many errors one load reports, so that a garbage file
// does not produce megabytes of output.
const maxErrors = 200

// ErrInvalidManifest is matched (with errors.Is) by every *ManifestErrors, so
// that callers can tell "the manifest is wrong" from "the file is missing".
var ErrInvalidManifest = errors.New("invalid manifest")

// Manifest is a validated, normalised agent manifest.
type Manifest struct {
	// File is the manifest's path as given to LoadManifest (or the name given
	// to ParseManifest); error positions are reported against it.
	File string
	// Dir is the absolute directory relative paths were resolved against.
	Dir string
	// Digest is "sha256:" followed by the hex SHA-256 of the manifest's bytes.
	Digest string

	Name        string  // required; [a-z0-9][a-z0-9-]*, at most 63 characters
	Version     string  // free text; a bare YAML number keeps its literal text
	Description string  // free text
	Runtime     Runtime // RuntimeNative when the manifest names none

	Permissions Permissions
	Limits      Limits
	Audit       AuditConfig

	// Warnings are findings that do not make the manifest invalid, such as a
	// write path that a deny entry shadows.
	Warnings []ManifestError

	// keys are where each key the manifest sets is, by dotted name.
	keys map[string]Position
}

// KeyPos returns where the manifest sets key, a dotted name such as
// limits.max_tokens, and whether it does.
func (m *Manifest) KeyPos(key string) (Position, bool) {
	p, ok := m.keys[key]
	return p, ok
}

// Runtime names the sandbox backend an agent runs on.
type Runtime string

// The runtimes a manifest may name.
const (
	RuntimeNative      Runtime = "native"
	RuntimeGVisor      Runtime = "gvisor"
	RuntimeDocker      Runtime = "docker"
	RuntimeFirecracker Runtime = "firecracker"
)

// Runtimes lists every runtime a manifest may name, the default first.
var Runtimes = []Runtime{RuntimeNative, RuntimeGVisor, RuntimeDocker, RuntimeFirecracker}

// Permissions is the manifest's permissions section.
type Permissions struct {
	Filesystem  FilesystemPermissions
	Network     NetworkPermissions
	Tools       ToolPermissions
	Credentials []Credential
}

// FilesystemPermissions lists paths. Deny wins over Read and Write: a path
// equal to or under a Deny entry is neither readable nor writable. No Read
// list means "the default read policy" (everywhere but the built-in deny
// set); a read list written empty is refused, as it would not mean
// "nothing".
type FilesystemPermissions struct {
	Read  []PathRule
	Write []PathRule
	Deny  []PathRule
	// Scratch may be written with every change discarded when the agent
	// ends (an overlay); the home's tool caches are scratch already.
	Scratch []PathRule
	// GitWrites lets the agent write inside .git in its writable roots
	// (commit, checkout, stash); hooks and git's configuration stay
	// read-only. Off: .git is read-only whole.
	GitWrites bool
}

// PathRule is one filesystem path of a manifest.
type PathRule struct {
	Raw  string   // as written in the manifest
	Path string   // absolute and cleaned; ~ expanded; symlinks NOT resolved
	Pos  Position // where Raw is in the manifest
}

// NetworkPermissions lists host patterns. Deny wins over Allow. DenyAll
// records a "*" in the deny list, which means "everything not allowed"; it
// is also what happens without it (the egress proxy refuses every host the
// allow list does not match), so it only makes the intent explicit.
type NetworkPermissions struct {
	Allow   []HostPattern
	Deny    []HostPattern // without the "*" entry
	DenyAll bool
	// UnixSockets lets the agent create unix sockets (socketpair is always
	// allowed): servers on a socket in /tmp, tmux, Python's forkserver. Off
	// by default: before Landlock ABI 9 nothing keeps the agent from
	// connecting to a host service's socket in a readable directory.
	UnixSockets bool
}

// ToolPermissions lists tool-name globs (path.Match syntax). Deny wins over
// Allow.
type ToolPermissions struct {
	Allow []string
	Deny  []string
}

// Credential is a vault entry the agent may use. The agent sees a
// placeholder; the egress proxy substitutes the real value only in requests
// to Hosts (all of network.allow when Hosts is empty), and only in Header when
// one is named.
type Credential struct {
	Name   string
	Hosts  []HostPattern
	Header string
	Pos    Position
}

// Limits are the agent's resource limits. A zero field means "no limit",
// except MaxMemoryMB: without it a run applies DefaultMaxMemoryMB.
type Limits struct {
	MaxTokens    int64
	MaxDuration  time.Duration
	MaxMemoryMB  int64
	MaxRequests  int64
	MaxToolCalls int64
}

// MaxMemoryBytes returns MaxMemoryMB in bytes (0 when unset).
func (l Limits) MaxMemoryBytes() int64 { return l.MaxMemoryMB << 20 }

// AuditConfig is the manifest's audit section.
type AuditConfig struct {
	LogLevel LogLevel // LogStandard when the manifest names none
	AlertOn  []string // values from AlertKinds
	// LogPath is the absolute, cleaned audit log path; empty means the
	// runner's default.
	LogPath string
	// LogPathPos is where audit.log_path is in the manifest.
	LogPathPos Position
}

// Position is a 1-based line and column in a manifest.
type Position struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// ManifestError is one problem in a manifest, at a position.
type ManifestError struct {
	File string
	Line int
	Col  int
	Msg  string
	// Err is the underlying error, when there is one (for errors.Is).
	Err error
}

// Error formats the error as FILE:LINE:COL: message.
func (e ManifestError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap returns the underlying error, if any.
func (e ManifestError) Unwrap() error { return e.Err }

// ManifestErrors is every problem found in one manifest, in file order.
type ManifestErrors struct {
	List []ManifestError
}

// Error prints one error per line.
func (e *ManifestErrors) Error() string {
	var b strings.Builder
	for i, me := range e.List {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(me.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalidManifest.
func (e *ManifestErrors) Is(target error) bool { return target == ErrInvalidManifest }

// LoadOptions adjust how a manifest is loaded. The zero value is the normal
// behaviour.
type LoadOptions struct {
	// Home is the directory "~" stands for; default os.UserHomeDir.
	Home string
	// BaseDir is the directory relative paths are relative to; default the
	// manifest file's directory, that of the file a symbolic link leads to
	// for LoadManifest (the working directory for ParseManifest with a name
	// that has no directory).
	BaseDir string
}

// LoadManifest reads, parses and validates the manifest at path. A manifest
// that is wrong yields a *ManifestErrors listing every problem; a file that
// cannot be read yields the underlying error, wrapped.
func LoadManifest(path string) (*Manifest, error) {
	return LoadManifestWith(path, LoadOptions{})
}

// LoadManifestWith is LoadManifest with options.
func LoadManifestWith(path string, opts LoadOptions) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("manifest: %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("manifest: read %s: %w", path, err)
	}
	if len(data) > MaxManifestSize {
		return nil, fmt.Errorf("manifest: %s is larger than %d bytes", path, MaxManifestSize)
	}
	if opts.BaseDir == "" {
		// A manifest linked from elsewhere means what it says beside its
		// own files, as a relative symbolic link or include would.
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		opts.BaseDir = filepath.Dir(real)
	}
	return ParseManifestWith(path, data, opts)
}

// ParseManifest parses and validates a manifest held in memory. name is used
// in error positions and, when it has a directory, as the base of relative
// paths.
func ParseManifest(name string, data []byte) (*Manifest, error) {
	return ParseManifestWith(name, data, LoadOptions{})
}

// ParseManifestWith is ParseManifest with options.
func ParseManifestWith(name string, data []byte, opts LoadOptions) (*Manifest, error) {
	base := opts.BaseDir
	if base == "" {
		base = filepath.Dir(name)
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("manifest: base directory: %w", err)
	}
	sum := sha256.Sum256(data)
	m := &Manifest{
		File:    name,
		Dir:     base,
		Digest:  "sha256:" + hex.EncodeToString(sum[:]),
		Runtime: RuntimeNative,
		Audit:   AuditConfig{LogLevel: LogStandard},
	}
	d := &decoder{file: name, base: base, home: opts.Home, m: m}
	d.decode(data)
	m.Warnings = sortErrors(d.warns)
	if len(d.errs) > 0 {
		list := sortErrors(d.errs)
		if len(list) > maxErrors {
			last := list[maxErrors-1]
			list = append(list[:maxErrors-1], ManifestError{File: name, Line: last.Line, Col: last.Col,
				Msg: "too many errors; fix the ones above and run validate again"})
		}
		return nil, &ManifestErrors{List: list}
	}
	return m, nil
}

func sortErrors(list []ManifestError) []ManifestError {
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Line != list[j].Line {
			return list[i].Line < list[j].Line
		}
		return list[i].Col < list[j].Col
	})
	return list
}

// ExpandPath turns a manifest path into an absolute, cleaned path: "~" and
// "~/x" are under home, a relative path is under base. It touches the
// filesystem only for a path with a ".." component, which it reads as the
// kernel will (see JoinPath). "~user" forms are refused.
func ExpandPath(raw, home, base string) (string, error) {
	switch {
	case raw == "":
		return "", errors.New("empty path")
	case strings.IndexByte(raw, 0) >= 0:
		return "", errors.New("path contains a NUL byte")
	case raw == "~" || strings.HasPrefix(raw, "~/"):
		if home == "" {
			return "", errors.New("cannot expand ~: the home directory is unknown (set $HOME)")
		}
		if !filepath.IsAbs(home) {
			return "", fmt.Errorf("cannot expand ~: home directory %q is not absolute", home)
		}
		return JoinPath(home, raw[1:]), nil
	case strings.HasPrefix(raw, "~"):
		return "", fmt.Errorf("%q: only ~ and ~/... (your own home) are supported, not ~user", raw)
	case filepath.IsAbs(raw):
		return JoinPath("/", raw), nil
	default:
		if !filepath.IsAbs(base) {
			return "", fmt.Errorf("base directory %q is not absolute", base)
		}
		return JoinPath(base, raw), nil
	}
}

// JoinPath joins base and rel (rel taken as relative to base even when it
// starts with "/"). Without a ".." component in rel this is filepath.Join.
// With one, the joined path is read as the kernel will read it (see
// ResolvePath): the kernel applies ".." to the directory a symbolic link
// before it leads to, where cleaning the path would drop the link's own
// name (LINK/../secret is the secret beside LINK's target, not beside
// LINK), so a rule would land on another file than the one the command
// opens.
func JoinPath(base, rel string) string {
	if !slices.Contains(strings.Split(rel, "/"), "..") {
		return filepath.Join(base, rel)
	}
	joined := strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(rel, "/")
	if r, err := ResolvePath(joined); err == nil {
		return r
	}
	return filepath.Join(base, rel) // a loop of links: leave it as it is named
}

// Limits every run applies: the memory limit when the manifest sets no
// limits.max_memory_mb, and the process and open-file limits, which a
// manifest does not set. They are the library's defaults
// (agentbox.DefaultMaxMemoryBytes, DefaultMaxProcesses,
// DefaultMaxFileDescriptors), which supervise checks them against.
const (
	DefaultMaxMemoryMB  = 2048
	DefaultMaxProcesses = 1024
	DefaultMaxOpenFiles = 1024
)
