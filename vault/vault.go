// Package vault is agentbox's encrypted credential store.
//
// A vault is one JSON file (mode 0600, in a 0700 directory) holding named
// credentials. The key is derived from a passphrase with Argon2id (random
// salt, parameters stored in the file); a key-check value refuses a wrong
// passphrase before anything is read or written. Each value is sealed with
// AES-256-GCM under a fresh random 96-bit nonce, with associated data that
// binds it to the format version, the vault's random id, the credential name
// and its created and updated times: an edited, truncated or swapped entry
// fails to open with an *EntryError wrapping ErrCorrupt.
//
// Writes are atomic (temporary file in the same directory, fsync, rename,
// fsync of the directory) and serialised between processes by an exclusive
// lock on a sibling lock file, so concurrent writers never lose each other's
// credentials. Readers need no lock.
//
// What the format does not detect: the removal of a whole entry, or the
// replacement of the whole file (or of one entry with all its fields) by an
// older copy of itself. Anyone who can write the vault file can also delete
// it; the data directory is outside every sandbox.
//
// Values are returned as Secret, which never prints its contents. Names and
// times are not secret and are not encrypted. A program that opens a vault
// calls LimitCoreDumps first, so that a crash writes no core file with the
// key or a value in it (see LimitCoreDumps for what a core_pattern handler
// still receives).
package vault

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// Provider supplies credential values by name. *Vault implements it; the
// library and the egress proxy consume it, so a caller may plug in any other
// store.
type Provider interface {
	// Credential returns the value of the named credential. The caller owns
	// the Secret and should Wipe it when done. An unknown name is an error
	// wrapping ErrNotFound.
	Credential(ctx context.Context, name string) (Secret, error)
}

// FileName is the name of the vault file in the data directory.
const FileName = "vault.json"

// DefaultPath returns the vault file in agentbox's data directory
// (internal/paths.DataDir). It creates nothing.
func DefaultPath() (string, error) {
	dir, err := paths.DataDir()
	if err != nil {
		return "", fmt.Errorf("vault: %w", err)
	}
	return filepath.Join(dir, FileName), nil
}

// Entry describes one credential, never its value.
type Entry struct {
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Option configures Open, Create and OpenOrCreate.
type Option func(*config)

type config struct {
	kdf         KDFParams
	now         func() time.Time
	lockTimeout time.Duration
}

// WithKDFParams sets the Argon2id parameters of a vault being created
// (default DefaultKDFParams). An existing vault keeps the parameters stored in
// its file.
func WithKDFParams(p KDFParams) Option { return func(c *config) { c.kdf = p } }

// WithClock sets the clock used for created and updated times.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithLockTimeout sets how long a write waits for another process's lock
// before failing with ErrLocked (default 30s).
func WithLockTimeout(d time.Duration) Option { return func(c *config) { c.lockTimeout = d } }

func newConfig(opts []Option) config {
	c := config{kdf: DefaultKDFParams(), now: time.Now, lockTimeout: 30 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Vault is an open vault. Its methods are safe for concurrent use. Get, List
// and Credential read the state loaded by Open, the last Put or Delete, or
// Reload; Put and Delete re-read the file under the lock first, so writes by
// other processes are never lost.
type Vault struct {
	path string
	cfg  config

	mu   sync.RWMutex
	keys *keys // nil after Close
	f    *file
}

// Path returns the vault file's path.
func (v *Vault) Path() string { return v.path }

// Open opens the existing vault at path with passphrase. It fails with
// ErrNoVault (also fs.ErrNotExist) if there is none, ErrCorrupt if the file is
// damaged and ErrWrongPassphrase if the passphrase does not match. It never
// writes. The caller keeps ownership of passphrase (and should wipe it).
func Open(path string, passphrase []byte, opts ...Option) (*Vault, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	k, err := unlock(f, passphrase)
	if err != nil {
		return nil, err
	}
	return &Vault{path: path, cfg: newConfig(opts), keys: k, f: f}, nil
}

// Create creates a new, empty vault at path, creating its directory (mode
// 0700) if needed. It fails with fs.ErrExist if a file is already there.
func Create(path string, passphrase []byte, opts ...Option) (*Vault, error) {
	cfg := newConfig(opts)
	if err := prepareDir(path); err != nil {
		return nil, err
	}
	var v *Vault
	err := withLock(path, cfg.lockTimeout, func() error {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("vault: %s: %w", path, fs.ErrExist)
		}
		var err error
		v, err = create(path, passphrase, cfg)
		return err
	})
	return v, err
}

// OpenOrCreate opens the vault at path, or creates an empty one with
// passphrase if there is none. Concurrent callers in several processes agree:
// exactly one creates it, the others open it.
func OpenOrCreate(path string, passphrase []byte, opts ...Option) (*Vault, error) {
	v, err := Open(path, passphrase, opts...)
	if !errors.Is(err, ErrNoVault) {
		return v, err
	}
	cfg := newConfig(opts)
	if err := prepareDir(path); err != nil {
		return nil, err
	}
	created := false
	err = withLock(path, cfg.lockTimeout, func() error {
		if _, err := os.Lstat(path); err == nil {
			return nil // someone else was faster; open it below, outside the lock
		}
		var err error
		v, err = create(path, passphrase, cfg)
		created = err == nil
		return err
	})
	if err != nil || created {
		return v, err
	}
	return Open(path, passphrase, opts...)
}

func prepareDir(path string) error {
	if err := paths.Ensure(filepath.Dir(path)); err != nil {
		return fmt.Errorf("vault: %w", err)
	}
	return nil
}

// create writes a new empty vault. The caller holds the lock.
func create(path string, passphrase []byte, cfg config) (*Vault, error) {
	if len(passphrase) == 0 {
		return nil, errors.New("vault: empty passphrase")
	}
	if err := cfg.kdf.validate(); err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	id, err := randomBytes(idLen)
	if err != nil {
		return nil, err
	}
	salt, err := randomBytes(saltLen)
	if err != nil {
		return nil, err
	}
	f := &file{
		Version:     formatVersion,
		ID:          id,
		KDF:         kdfSection{Algorithm: kdfArgon2id, KDFParams: cfg.kdf, Salt: salt},
		Credentials: []fileEntry{},
	}
	k, err := deriveKeys(passphrase, salt, cfg.kdf)
	if err != nil {
		return nil, err
	}
	h := f.header()
	f.KeyCheck = keyCheck(k, h)
	f.Digest = digest(h, f.KeyCheck)
	if err := writeFile(path, f); err != nil {
		k.wipe()
		return nil, err
	}
	return &Vault{path: path, cfg: cfg, keys: k, f: f}, nil
}

// unlock derives the keys and checks them against the key-check value.
func unlock(f *file, passphrase []byte) (*keys, error) {
	k, err := deriveKeys(passphrase, f.KDF.Salt, f.KDF.KDFParams)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(keyCheck(k, f.header()), f.KeyCheck) {
		k.wipe()
		return nil, ErrWrongPassphrase
	}
	return k, nil
}

// readFile reads and parses the vault file without the key.
func readFile(path string) (*file, error) {
	// Non-blocking: a FIFO planted at the path is refused below, not
	// waited on.
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("vault: %w at %s: %w", ErrNoVault, path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("vault: %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("vault: read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("vault: %s: %w", path, corrupt("larger than %d bytes", maxFileSize))
	}
	f, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("vault: %s: %w", path, err)
	}
	return f, nil
}
