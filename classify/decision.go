package classify

import (
	"errors"
	"fmt"
	"strings"
)

// Decision is the verdict on a command. Values are ordered by severity:
// Allow < Sandboxed < Escalated < Forbidden, so the most severe of two
// decisions is simply the larger one.
type Decision int

// The four decisions, least severe first.
const (
	// Allow: harmless, read-only or ordinary work; still runs in the sandbox.
	Allow Decision = iota
	// Sandboxed: unknown to the rules; runs in the sandbox without asking.
	Sandboxed
	// Escalated: a person (or the approval callback) must approve it first.
	Escalated
	// Forbidden: refused outright.
	Forbidden
)

// ErrUnknownDecision is returned (wrapped) when a decision name is not one of
// "allow", "sandboxed", "escalated" or "forbidden".
var ErrUnknownDecision = errors.New("unknown decision")

var decisionNames = [...]string{"allow", "sandboxed", "escalated", "forbidden"}

// String returns the lower-case name of the decision ("allow", "sandboxed",
// "escalated", "forbidden"), or "Decision(N)" for an invalid value.
func (d Decision) String() string {
	if d < 0 || int(d) >= len(decisionNames) {
		return fmt.Sprintf("Decision(%d)", int(d))
	}
	return decisionNames[d]
}

// Valid reports whether d is one of the four decisions.
func (d Decision) Valid() bool { return d >= Allow && d <= Forbidden }

// MarshalText encodes the decision as its name, so that JSON carries strings.
func (d Decision) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("classify: %w: %d", ErrUnknownDecision, int(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText decodes a decision name (case-insensitive).
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDecision parses a decision name, case-insensitively and ignoring
// surrounding space. "sandbox", "escalate", "forbid", "deny" and "ask" are
// accepted as synonyms.
func ParseDecision(s string) (Decision, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow", "allowed":
		return Allow, nil
	case "sandboxed", "sandbox":
		return Sandboxed, nil
	case "escalated", "escalate", "ask":
		return Escalated, nil
	case "forbidden", "forbid", "deny", "denied":
		return Forbidden, nil
	}
	return 0, fmt.Errorf("classify: %w %q (want allow, sandboxed, escalated or forbidden)", ErrUnknownDecision, s)
}
