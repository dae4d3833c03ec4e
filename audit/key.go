package audit

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// keyName is the signer name in checkpoint signatures.
const keyName = "agentbox-audit"

// Files in the state directory.
const (
	stateSubdir   = "audit"
	keyFile       = "key"     // signer key, mode 0600
	pubFile       = "key.pub" // verifier key, public
	checkpointDir = "checkpoints"
)

var (
	// ErrNoKey reports that no signing or verifier key was found, so
	// signed checkpoints cannot be checked.
	ErrNoKey = errors.New("audit: no audit key")
	// ErrUnsafeKey reports a signing key file that others could read or
	// replace: a symlink, not a regular file, not owned by this user, or
	// with group or other permission bits.
	ErrUnsafeKey = errors.New("audit: unsafe signing key file")
)

// auditDir returns STATE/audit, creating it (and STATE) with mode 0700.
func auditDir(stateDir string, create bool) (string, error) {
	if stateDir == "" {
		d, err := paths.StateDir()
		if err != nil {
			return "", err
		}
		stateDir = d
	}
	dir := filepath.Join(stateDir, stateSubdir)
	if create {
		for _, d := range []string{stateDir, dir, filepath.Join(dir, checkpointDir)} {
			if err := paths.Ensure(d); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// loadOrCreateSigner returns the signer in dir/key, generating a key pair if
// there is none. Concurrent first uses agree on one key: the key file is
// published with link(2), which fails if another process got there first.
func loadOrCreateSigner(dir string) (note.Signer, error) {
	path := filepath.Join(dir, keyFile)
	s, err := loadSigner(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	skey, _, err := note.GenerateKey(rand.Reader, keyName)
	if err != nil {
		return nil, fmt.Errorf("audit: generate key: %w", err)
	}
	if err := writeFileAtomic(dir, keyFile, []byte(skey+"\n"), 0o600, true); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	if s, err = loadSigner(path); err != nil {
		return nil, err
	}
	// Publish the verifier key of the key that won (another process may
	// have created one first).
	v, err := verifierKeyOf(path)
	if err != nil {
		return nil, err
	}
	if cur, _ := os.ReadFile(filepath.Join(dir, pubFile)); strings.TrimSpace(string(cur)) != v {
		if err := writeFileAtomic(dir, pubFile, []byte(v+"\n"), 0o644, false); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// writeFileAtomic writes data to dir/name through a temporary file. With
// exclusive it fails with fs.ErrExist instead of replacing an existing file.
func writeFileAtomic(dir, name string, data []byte, mode os.FileMode, exclusive bool) error {
	f, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(mode) // CreateTemp makes 0600; umask does not apply to chmod
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit: write %s: %w", name, err)
	}
	dst := filepath.Join(dir, name)
	if exclusive {
		err = os.Link(tmp, dst)
	} else {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
		return fmt.Errorf("audit: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("audit: sync %s: %w", dir, err)
	}
	return nil
}

// checkKeyFile refuses a key file that is not a private regular file of
// this user.
func checkKeyFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%v)", ErrUnsafeKey, path, fi.Mode().Type())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: %s has mode %v; run chmod 600 %s and treat its checkpoints as untrusted", ErrUnsafeKey, path, fi.Mode().Perm(), path)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeKey, path, uid, os.Geteuid())
	}
	return nil
}

func readKey(path string) (string, error) {
	if err := checkKeyFile(path); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil
}

func loadSigner(path string) (note.Signer, error) {
	skey, err := readKey(path)
	if err != nil {
		return nil, err
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: %w", path, err)
	}
	return s, nil
}

// verifierKeyOf derives the verifier key from the signer key in path.
func verifierKeyOf(path string) (string, error) {
	skey, err := readKey(path)
	if err != nil {
		return "", err
	}
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" {
		return "", fmt.Errorf("audit: %s: malformed signer key", path)
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return "", fmt.Errorf("audit: %s: malformed signer key", path)
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	return note.NewEd25519VerifierKey(parts[2], pub)
}

// loadVerifier finds the verifier for checkpoints: vkey if given, else the
// one derived from STATE/audit/key, else STATE/audit/key.pub. A key file that
// is unsafe still yields a verifier, with a warning: its signatures prove
// less.
func loadVerifier(dir, vkey string) (note.Verifier, string, error) {
	var warning string
	if vkey == "" {
		v, err := verifierKeyOf(filepath.Join(dir, keyFile))
		switch {
		case err == nil:
			vkey = v
		case errors.Is(err, ErrUnsafeKey):
			warning = err.Error()
			if pub, perr := os.ReadFile(filepath.Join(dir, pubFile)); perr == nil {
				vkey = strings.TrimSpace(string(pub))
			}
		default:
			if pub, perr := os.ReadFile(filepath.Join(dir, pubFile)); perr == nil {
				vkey = strings.TrimSpace(string(pub))
			}
		}
	}
	if vkey == "" {
		return nil, warning, fmt.Errorf("%w in %s", ErrNoKey, dir)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, warning, fmt.Errorf("audit: verifier key: %w", err)
	}
	return v, warning, nil
}
