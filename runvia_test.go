//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"

	"github.com/agentbox-dev/agentbox"
)

// runVia runs cmd in a sandbox of m through api: "Wrap" (Wrap, cmd.Run,
// the cleanup) or "Start" (Start, Wait). setup is Wrap's or Start's error
// (the command did not run); run is cmd.Run's or Wait's.
func runVia(m *agentbox.Manager, api string, cmd *exec.Cmd, opts ...agentbox.Option) (setup, run error) {
	if api == "Wrap" {
		cleanup, err := m.Wrap(context.Background(), cmd, opts...)
		if err != nil {
			return err, nil
		}
		defer cleanup()
		return nil, cmd.Run()
	}
	p, err := m.Start(context.Background(), cmd, opts...)
	if err != nil {
		return err, nil
	}
	_, err = p.Wait()
	return nil, err
}
