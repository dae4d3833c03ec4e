package vault

import (
	"fmt"
	"io"
	"log/slog"
)

// Redacted is what a Secret prints in place of its value.
const Redacted = "[REDACTED]"

// Secret holds a credential value. Every way of printing or encoding it
// (fmt verbs including %#v, String, GoString, JSON, text, log/slog) yields
// "[REDACTED]", so that a value cannot be logged by accident. The bytes are
// behind a pointer, so a Secret kept in an unexported struct field prints as
// an address under %+v, not as its contents.
//
// Copies of a Secret share one buffer: Wipe on any copy wipes them all. The
// zero Secret is empty.
type Secret struct{ p *secretBuf }

type secretBuf struct{ b []byte }

// NewSecret returns a Secret that takes ownership of b: the caller must not
// use b afterwards except through the Secret.
func NewSecret(b []byte) Secret { return Secret{p: &secretBuf{b: b}} }

// Bytes returns the value. The slice is the Secret's own buffer: do not keep
// it past Wipe, and copy it only where the copy is wiped too.
func (s Secret) Bytes() []byte {
	if s.p == nil {
		return nil
	}
	return s.p.b
}

// Len returns the length of the value in bytes.
func (s Secret) Len() int { return len(s.Bytes()) }

// Wipe overwrites the value with zeros and empties the Secret (and every copy
// of it).
func (s Secret) Wipe() {
	if s.p == nil {
		return
	}
	clear(s.p.b)
	s.p.b = nil
}

// String returns "[REDACTED]".
func (s Secret) String() string { return Redacted }

// GoString returns "[REDACTED]".
func (s Secret) GoString() string { return Redacted }

// Format writes "[REDACTED]" for every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Redacted) }

// MarshalJSON returns the JSON string "[REDACTED]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText returns "[REDACTED]".
func (s Secret) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// LogValue makes log/slog print "[REDACTED]".
func (s Secret) LogValue() slog.Value { return slog.StringValue(Redacted) }

// wipeBytes zeroes b. It is a helper for key material and plaintext buffers.
func wipeBytes(b []byte) { clear(b) }
