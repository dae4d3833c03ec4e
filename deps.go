package agentbox

import (
	"context"
	"errors"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// Capability is one line of a capability report.
type Capability = sandbox.Check

// Capabilities reports which isolation layers this machine offers (the
// report agentbox doctor prints).
func Capabilities() []Capability { return probe() }

// CheckDependencies reports the layers the Config needs that this machine
// lacks: with the strict fallback as an *UnavailableError (ErrDependencyMissing);
// with the warn fallback they are logged and nil is returned.
func (m *Manager) CheckDependencies(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cfg := m.Config()
	var errs []error
	for _, c := range probe() {
		if !c.Required || c.OK {
			continue
		}
		if cfg.FallbackPolicy == FallbackWarn {
			m.log().Warn("sandbox layer unavailable", "layer", c.Name, "reason", c.Detail)
			continue
		}
		errs = append(errs, &UnavailableError{Layer: c.Name, Reason: c.Detail})
	}
	return errors.Join(errs...)
}
