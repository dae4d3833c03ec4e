package vault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Get decrypts the named credential. The caller owns the returned Secret and
// should Wipe it when done. Errors: ErrInvalidName, ErrNotFound, or an
// *EntryError wrapping ErrCorrupt when the entry fails authentication.
func (v *Vault) Get(name string) (Secret, error) {
	if err := ValidateName(name); err != nil {
		return Secret{}, fmt.Errorf("vault: %w", err)
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.keys == nil {
		return Secret{}, ErrClosed
	}
	i := v.f.find(name)
	if i < 0 {
		return Secret{}, fmt.Errorf("vault: %w: %s", ErrNotFound, name)
	}
	e := &v.f.Credentials[i]
	pt, err := open(v.keys.seal, e.Nonce, e.Ciphertext, v.f.ad(e))
	if err != nil {
		return Secret{}, &EntryError{Name: name, Err: err}
	}
	return NewSecret(pt), nil
}

// Credential implements Provider with Get.
func (v *Vault) Credential(ctx context.Context, name string) (Secret, error) {
	if err := ctx.Err(); err != nil {
		return Secret{}, err
	}
	return v.Get(name)
}

// Verify decrypts the named credential and wipes the result: a nil error
// means the entry is intact and authentic.
func (v *Vault) Verify(name string) error {
	s, err := v.Get(name)
	s.Wipe()
	return err
}

// List returns the credentials sorted by name: names and times, never values.
// The names and times are authenticated only when the entry is opened (Get
// or Verify).
func (v *Vault) List() []Entry {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]Entry, 0, len(v.f.Credentials))
	for _, e := range v.f.Credentials {
		out = append(out, Entry{Name: e.Name, Created: e.Created, Updated: e.Updated})
	}
	return out
}

// Entry returns the description of the named credential.
func (v *Vault) Entry(name string) (Entry, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	i := v.f.find(name)
	if i < 0 {
		return Entry{}, false
	}
	e := v.f.Credentials[i]
	return Entry{Name: e.Name, Created: e.Created, Updated: e.Updated}, true
}

// Put stores value under name, rotating it if name exists (the created time
// is kept, the updated time is now). The caller keeps ownership of value.
// It is stored byte for byte; the egress proxy sends it without spaces or
// tabs at its ends, which HTTP drops from a header anyway.
func (v *Vault) Put(name string, value []byte) error {
	_, err := v.Set(name, value)
	return err
}

// Set is Put that also reports whether name existed and was rotated.
func (v *Vault) Set(name string, value []byte) (rotated bool, err error) {
	if err := ValidateName(name); err != nil {
		return false, fmt.Errorf("vault: %w", err)
	}
	if len(value) == 0 || len(value) > MaxValueSize {
		return false, fmt.Errorf("vault: %w: %d bytes (1 to %d allowed)", ErrInvalidValue, len(value), MaxValueSize)
	}
	err = v.update(func(f *file, sealKey []byte) error {
		now := v.cfg.now().UTC().Round(0)
		e := fileEntry{Name: name, Created: now, Updated: now}
		i := f.find(name)
		if i >= 0 {
			rotated = true
			e.Created = f.Credentials[i].Created
		}
		nonce, ct, err := seal(sealKey, value, f.ad(&e))
		if err != nil {
			return err
		}
		e.Nonce, e.Ciphertext = nonce, ct
		if i >= 0 {
			f.Credentials[i] = e
		} else {
			f.Credentials = append(f.Credentials, e)
			slices.SortFunc(f.Credentials, func(a, b fileEntry) int { return strings.Compare(a.Name, b.Name) })
		}
		return nil
	})
	return rotated, err
}

// Delete removes the named credential. It fails with ErrNotFound (and writes
// nothing) if there is no such credential.
func (v *Vault) Delete(name string) error {
	if err := ValidateName(name); err != nil {
		return fmt.Errorf("vault: %w", err)
	}
	return v.update(func(f *file, _ []byte) error {
		i := f.find(name)
		if i < 0 {
			return fmt.Errorf("vault: %w: %s", ErrNotFound, name)
		}
		f.Credentials = slices.Delete(f.Credentials, i, i+1)
		return nil
	})
}

// Reload re-reads the vault file, picking up changes made by other processes.
func (v *Vault) Reload() error {
	f, err := readFile(v.path)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys == nil {
		return ErrClosed
	}
	if !v.f.sameVault(f) {
		return fmt.Errorf("vault: %s: %w", v.path, ErrChanged)
	}
	v.f = f
	return nil
}

// Close wipes the key from memory. Later calls fail with ErrClosed.
func (v *Vault) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.keys.wipe()
	v.keys = nil
	return nil
}

// update runs change on the current file contents under the vault lock and
// writes the result atomically. If change fails, nothing is written.
func (v *Vault) update(change func(f *file, sealKey []byte) error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys == nil {
		return ErrClosed
	}
	return withLock(v.path, v.cfg.lockTimeout, func() error {
		f, err := readFile(v.path)
		if err != nil {
			return err
		}
		if !v.f.sameVault(f) {
			return fmt.Errorf("vault: %s: %w", v.path, ErrChanged)
		}
		if err := change(f, v.keys.seal); err != nil {
			return err
		}
		if err := writeFile(v.path, f); err != nil {
			return err
		}
		v.f = f
		return nil
	})
}

// lockTimeoutError names the lock file in ErrLocked.
func lockTimeoutError(lockPath string, d time.Duration) error {
	return fmt.Errorf("vault: %w (waited %v for %s)", ErrLocked, d, lockPath)
}
