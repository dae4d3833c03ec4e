package vault

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// formatVersion is the version of the file format this package writes.
const formatVersion = 1

// maxFileSize bounds the vault file read into memory.
const maxFileSize = 64 << 20

// MaxValueSize is the largest credential value accepted.
const MaxValueSize = 1 << 20

// file is the on-disk form of a vault (JSON). Byte fields are base64.
//
//	{"version":1, "id":…, "kdf":{"algorithm":"argon2id","time":3,"memory_kib":65536,"threads":2,"salt":…},
//	 "key_check":…, "digest":…,
//	 "credentials":[{"name":"API_KEY","created":…,"updated":…,"nonce":…,"ciphertext":…}]}
type file struct {
	Version     int         `json:"version"`
	ID          []byte      `json:"id"`
	KDF         kdfSection  `json:"kdf"`
	KeyCheck    []byte      `json:"key_check"`
	Digest      []byte      `json:"digest"`
	Credentials []fileEntry `json:"credentials"`
}

type kdfSection struct {
	Algorithm string `json:"algorithm"`
	KDFParams
	Salt []byte `json:"salt"`
}

type fileEntry struct {
	Name       string    `json:"name"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Nonce      []byte    `json:"nonce"`
	Ciphertext []byte    `json:"ciphertext"`
}

func (f *file) header() []byte {
	return headerBytes(f.Version, f.ID, f.KDF.Algorithm, f.KDF.KDFParams, f.KDF.Salt)
}

func (f *file) ad(e *fileEntry) []byte {
	return entryAD(f.Version, f.ID, e.Name, e.Created, e.Updated)
}

// find returns the index of name in the sorted credentials, or -1.
func (f *file) find(name string) int {
	i, ok := slices.BinarySearchFunc(f.Credentials, name, func(e fileEntry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return -1
	}
	return i
}

// sameVault reports whether g has the header (and so the key) of f.
func (f *file) sameVault(g *file) bool {
	return subtle.ConstantTimeCompare(f.KeyCheck, g.KeyCheck) == 1 && bytes.Equal(f.Digest, g.Digest)
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// parse decodes and validates a vault file. It checks everything that can be
// checked without the passphrase; errors are ErrCorrupt or
// ErrUnsupportedVersion. Entry names in messages are only ones that passed
// ValidateName.
func parse(data []byte) (*file, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, corrupt("not a vault file: %v", jsonErr(err, len(data)))
	}
	switch {
	case probe.Version == nil:
		return nil, corrupt("no format version")
	case *probe.Version > formatVersion:
		return nil, fmt.Errorf("%w %d (this agentbox reads version %d; upgrade agentbox)", ErrUnsupportedVersion, *probe.Version, formatVersion)
	case *probe.Version != formatVersion:
		return nil, corrupt("bad format version %d", *probe.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, corrupt("%v", jsonErr(err, len(data)))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, corrupt("trailing data after the vault")
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// jsonErr keeps JSON errors short and free of file contents.
func jsonErr(err error, size int) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var be base64.CorruptInputError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(size):
		return fmt.Sprintf("truncated after %d bytes", size)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	case errors.As(err, &be):
		return "bad base64 data"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated"
	}
	if s := err.Error(); strings.HasPrefix(s, "json: unknown field") {
		return strings.TrimPrefix(s, "json: ")
	}
	return "malformed JSON"
}

func (f *file) validate() error {
	switch {
	case len(f.ID) != idLen:
		return corrupt("vault id must be %d bytes", idLen)
	case f.KDF.Algorithm != kdfArgon2id:
		return corrupt("unknown key derivation %q", f.KDF.Algorithm)
	case len(f.KDF.Salt) < 16 || len(f.KDF.Salt) > 64:
		return corrupt("salt must be 16 to 64 bytes")
	case len(f.KeyCheck) != 32:
		return corrupt("key check must be 32 bytes")
	}
	if err := f.KDF.KDFParams.validate(); err != nil {
		return corrupt("%v", err)
	}
	if subtle.ConstantTimeCompare(f.Digest, digest(f.header(), f.KeyCheck)) != 1 {
		return corrupt("digest mismatch (version, id, key parameters or key check edited)")
	}
	if f.Credentials == nil {
		f.Credentials = []fileEntry{}
	}
	for i := range f.Credentials {
		e := &f.Credentials[i]
		if err := ValidateName(e.Name); err != nil {
			return corrupt("credential %d: %v", i+1, err)
		}
		switch {
		case len(e.Nonce) != nonceLen:
			return corrupt("credential %s: nonce must be %d bytes", e.Name, nonceLen)
		case len(e.Ciphertext) < tagLen || len(e.Ciphertext) > MaxValueSize+tagLen:
			return corrupt("credential %s: ciphertext of %d bytes out of range", e.Name, len(e.Ciphertext))
		case e.Created.IsZero() || e.Updated.IsZero():
			return corrupt("credential %s: missing created or updated time", e.Name)
		}
	}
	slices.SortFunc(f.Credentials, func(a, b fileEntry) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(f.Credentials); i++ {
		if f.Credentials[i].Name == f.Credentials[i-1].Name {
			return corrupt("credential %s appears twice", f.Credentials[i].Name)
		}
	}
	return nil
}

// encode returns the file bytes to write.
func (f *file) encode() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("vault: encode: %w", err)
	}
	return append(b, '\n'), nil
}
