package agentbox

import (
	"errors"
	"fmt"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// Sentinel errors. Callers branch on them with errors.Is.
var (
	// ErrUnsupportedPlatform: this operating system has no native sandbox.
	ErrUnsupportedPlatform = errors.New("agentbox: platform not supported")
	// ErrDependencyMissing: a kernel feature or tool the policy needs is not
	// available here, and the fallback policy is strict.
	ErrDependencyMissing = errors.New("agentbox: sandbox dependency missing")
	// ErrManagerClosed: the Manager was closed.
	ErrManagerClosed = errors.New("agentbox: manager closed")
	// ErrConfigInvalid: a Config or option is invalid; the error names the field.
	ErrConfigInvalid = errors.New("agentbox: invalid config")
	// ErrNilCommand: Wrap was given a nil *exec.Cmd, or Exec an empty command.
	ErrNilCommand = errors.New("agentbox: nil or empty command")
	// ErrTimeout: the command ran past its timeout and was killed (exit 137).
	ErrTimeout = errors.New("agentbox: command timed out")
	// ErrSandboxSetup: building the sandbox failed.
	ErrSandboxSetup = sandbox.ErrSetup
)

// ConfigError is an invalid field of a Config. It wraps ErrConfigInvalid.
type ConfigError struct {
	Field  string // e.g. "Filesystem.WritableRoots[1]"
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("agentbox: invalid config: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrConfigInvalid.
func (e *ConfigError) Unwrap() error { return ErrConfigInvalid }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// UnavailableError reports a layer that cannot be applied on this machine.
// It wraps ErrDependencyMissing.
type UnavailableError struct {
	Layer  string // e.g. "user namespaces", "landlock"
	Reason string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("agentbox: %s unavailable: %s", e.Layer, e.Reason)
}

// Unwrap returns ErrDependencyMissing.
func (e *UnavailableError) Unwrap() error { return ErrDependencyMissing }

// SetupError is a failure to build the sandbox or to start the program in
// it (a program that does not exist: ExitCode 127).
type SetupError = sandbox.SetupError
