package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/crypto/argon2"
)

// KDFParams are the Argon2id cost parameters. They are chosen when a vault is
// created and stored in its file.
type KDFParams struct {
	Time      uint32 `json:"time"`       // passes over memory
	MemoryKiB uint32 `json:"memory_kib"` // memory in KiB
	Threads   uint8  `json:"threads"`    // lanes
}

// Bounds accepted for stored parameters: enough for any sane choice, small
// enough that a damaged file cannot make Open burn minutes or gigabytes.
const (
	maxKDFTime      = 100
	maxKDFMemoryKiB = 4 << 20 // 4 GiB
)

// DefaultKDFParams returns the parameters new vaults use: RFC 9106's second
// recommended option (time 3, 64 MiB) with min(4, NumCPU) threads.
func DefaultKDFParams() KDFParams {
	return KDFParams{Time: 3, MemoryKiB: 64 << 10, Threads: uint8(min(4, max(1, runtime.NumCPU())))}
}

func (p KDFParams) validate() error {
	switch {
	case p.Time < 1 || p.Time > maxKDFTime:
		return fmt.Errorf("argon2id time %d out of range 1..%d", p.Time, maxKDFTime)
	case p.Threads < 1:
		return fmt.Errorf("argon2id threads must be at least 1")
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxKDFMemoryKiB:
		return fmt.Errorf("argon2id memory %d KiB out of range %d..%d", p.MemoryKiB, 8*uint32(p.Threads), maxKDFMemoryKiB)
	}
	return nil
}

const (
	kdfArgon2id = "argon2id"
	keyLen      = 32 // AES-256, HMAC-SHA256
	saltLen     = 32
	idLen       = 16
	nonceLen    = 12 // 96-bit GCM nonce
	tagLen      = 16
)

// keys are the subkeys derived from the passphrase.
type keys struct {
	check []byte // HMAC key for the key-check value
	seal  []byte // AES-256-GCM key for the entries
}

func (k *keys) wipe() {
	if k == nil {
		return
	}
	wipeBytes(k.check)
	wipeBytes(k.seal)
}

// deriveKeys runs Argon2id over the passphrase and splits the result with
// HKDF into independent subkeys. The Argon2id output is wiped.
func deriveKeys(passphrase, salt []byte, p KDFParams) (*keys, error) {
	master := argon2.IDKey(passphrase, salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	defer wipeBytes(master)
	check, err := hkdf.Key(sha256.New, master, nil, "agentbox vault v1 key check", keyLen)
	if err != nil {
		return nil, fmt.Errorf("vault: derive key: %w", err)
	}
	seal, err := hkdf.Key(sha256.New, master, nil, "agentbox vault v1 entries", keyLen)
	if err != nil {
		wipeBytes(check)
		return nil, fmt.Errorf("vault: derive key: %w", err)
	}
	return &keys{check: check, seal: seal}, nil
}

// headerBytes is the canonical binary encoding of everything that determines
// the key: format version, vault id and KDF parameters with their salt.
// Independent of JSON layout, so reformatting the file changes nothing.
func headerBytes(version int, id []byte, kdf string, p KDFParams, salt []byte) []byte {
	b := make([]byte, 0, 64+len(kdf)+len(id)+len(salt))
	b = append(b, "agentbox-vault/header\x00"...)
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	b = appendBytes(b, id)
	b = appendBytes(b, []byte(kdf))
	b = binary.BigEndian.AppendUint32(b, p.Time)
	b = binary.BigEndian.AppendUint32(b, p.MemoryKiB)
	b = append(b, p.Threads)
	return appendBytes(b, salt)
}

// digest is an unkeyed SHA-256 of the header and the key check. It tells a
// damaged or edited header (ErrCorrupt) from a wrong passphrase
// (ErrWrongPassphrase). It is not what makes the header authentic: an
// attacker can recompute it, and then the key check fails instead.
func digest(header, check []byte) []byte {
	h := sha256.New()
	h.Write(header)
	h.Write(check)
	return h.Sum(nil)
}

// keyCheck proves knowledge of the passphrase and authenticates the header.
func keyCheck(k *keys, header []byte) []byte {
	m := hmac.New(sha256.New, k.check)
	m.Write(header)
	return m.Sum(nil)
}

// entryAD is the associated data of one sealed value: it binds the value to
// the format version, the vault, the credential name and its times, so that a
// value moved to another name or vault, or an edited entry, fails to open.
func entryAD(version int, id []byte, name string, created, updated time.Time) []byte {
	b := make([]byte, 0, 64+len(id)+len(name))
	b = append(b, "agentbox-vault/entry\x00"...)
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	b = appendBytes(b, id)
	b = appendBytes(b, []byte(name))
	b = appendTime(b, created)
	return appendTime(b, updated)
}

func appendBytes(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func newGCM(key []byte) (cipher.AEAD, error) {
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("vault: cipher: %w", err)
	}
	return cipher.NewGCM(blk)
}

// seal encrypts value under key with a fresh random nonce.
func seal(key, value, ad []byte) (nonce, ciphertext []byte, err error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, nil, err
	}
	nonce = make([]byte, nonceLen)
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, fmt.Errorf("vault: random nonce: %w", err)
	}
	return nonce, aead.Seal(nil, nonce, value, ad), nil
}

// open decrypts and authenticates one value. Any failure is ErrCorrupt.
func open(key, nonce, ciphertext, ad []byte) ([]byte, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	pt, err := aead.Open(nil, nonce, ciphertext, ad)
	if err != nil {
		return nil, fmt.Errorf("%w: does not authenticate (edited, moved from another name or vault, or damaged)", ErrCorrupt)
	}
	return pt, nil
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("vault: random: %w", err)
	}
	return b, nil
}
