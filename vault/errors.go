package vault

import "errors"

// Sentinel errors. Callers branch on them with errors.Is; the messages never
// contain a credential value.
var (
	// ErrWrongPassphrase reports a passphrase that does not open the vault.
	ErrWrongPassphrase = errors.New("wrong vault passphrase")
	// ErrCorrupt reports a vault file, or one entry of it, that is damaged or
	// was edited: it fails to parse, a field is out of range, or an
	// authentication check fails.
	ErrCorrupt = errors.New("vault is damaged or was tampered with")
	// ErrNotFound reports a credential name that is not in the vault.
	ErrNotFound = errors.New("no such credential")
	// ErrInvalidName reports a credential name that is not an environment
	// variable name of the form [A-Z_][A-Z0-9_]*.
	ErrInvalidName = errors.New("invalid credential name")
	// ErrInvalidValue reports an empty value or one larger than MaxValueSize.
	ErrInvalidValue = errors.New("invalid credential value")
	// ErrNoVault reports that the vault file does not exist. It also matches
	// fs.ErrNotExist.
	ErrNoVault = errors.New("no vault")
	// ErrUnsupportedVersion reports a vault file written by a newer agentbox.
	ErrUnsupportedVersion = errors.New("unsupported vault format version")
	// ErrChanged reports that the vault file was replaced by a different vault
	// (another id, salt or passphrase) after this Vault was opened.
	ErrChanged = errors.New("vault file was replaced since it was opened")
	// ErrLocked reports that another process held the vault lock for longer
	// than the lock timeout.
	ErrLocked = errors.New("vault is locked by another process")
	// ErrClosed reports use of a Vault after Close.
	ErrClosed = errors.New("vault is closed")
)

// EntryError reports a problem with one credential of the vault. Name is
// always a valid credential name; the value never appears in the message.
type EntryError struct {
	Name string
	Err  error
}

// Error implements error.
func (e *EntryError) Error() string { return "vault: credential " + e.Name + ": " + e.Err.Error() }

// Unwrap returns the underlying error (for errors.Is(err, ErrCorrupt)).
func (e *EntryError) Unwrap() error { return e.Err }
