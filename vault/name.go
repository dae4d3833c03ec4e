package vault

import "fmt"

// MaxNameLen is the longest credential name accepted.
const MaxNameLen = 128

// ValidateName checks that name can be a credential name: an environment
// variable name of the form [A-Z_][A-Z0-9_]*, at most MaxNameLen bytes.
//
// The error does not repeat the name: a user who typed a secret where the
// name belongs must not see it echoed into a terminal log.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrInvalidName)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %d bytes long, at most %d allowed", ErrInvalidName, len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return fmt.Errorf("%w: must match [A-Z_][A-Z0-9_]* (an environment variable name); bad character at position %d", ErrInvalidName, i+1)
		}
	}
	return nil
}
