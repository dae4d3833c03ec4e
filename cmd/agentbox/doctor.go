package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentbox-dev/agentbox"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newDoctorCmd) }

// doctorReport is what `agentbox doctor --json` prints.
type doctorReport struct {
	Checks []agentbox.Capability `json:"checks"`
	// Sandbox is the end-to-end check: a command run under DefaultConfig.
	Sandbox agentbox.Capability `json:"sandbox"`
	Layers  []string            `json:"layers,omitempty"`
	// StrictOK says whether the strict default policy can run here.
	StrictOK bool `json:"strict_ok"`
}

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Report which isolation layers this machine offers",
		Long: `Report which isolation layers this machine offers (user namespaces, Landlock,
seccomp, cgroup delegation), then run a command under the default policy to
prove the whole sandbox works. Exits 1 when the strict default cannot run here.`,
		Example: "  agentbox doctor\n  agentbox doctor --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := runDoctor(cmd.Context())
			out := cmd.OutOrStdout()
			if asJSON {
				enc := newJSONEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return err
				}
			} else {
				for _, c := range append(r.Checks, r.Sandbox) {
					mark := "✅"
					if !c.OK && c.Required {
						mark = "❌"
					} else if !c.OK {
						mark = "⚠️ "
					}
					fmt.Fprintf(out, "%s %-16s %s\n", mark, c.Name, c.Detail)
				}
				if len(r.Layers) > 0 {
					fmt.Fprintf(out, "\nlayers applied to a sandboxed command:\n  %s\n", strings.Join(r.Layers, "\n  "))
				}
			}
			if !r.StrictOK {
				return exitWith(exitFailure, errors.New("the strict default policy cannot run on this machine (see ❌ above)"))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func runDoctor(ctx context.Context) doctorReport {
	r := doctorReport{Checks: agentbox.Capabilities(), StrictOK: true}
	r.Checks = append(r.Checks, buildCheck(debug.ReadBuildInfo()))
	for _, c := range r.Checks {
		if c.Required && !c.OK {
			r.StrictOK = false
		}
	}
	r.Sandbox = agentbox.Capability{Name: "sandbox", Required: true}
	m, err := agentbox.NewManager(agentbox.DefaultConfig())
	if err == nil {
		defer m.Close()
		var res *agentbox.ExecResult
		// As run and exec: no job-control stop while the command may run;
		// the report is printed with the terminal's job control as usual.
		ignoreTerminalStops()
		res, err = m.ExecArgs(ctx, "/bin/sh", []string{"-c", "exit 0"})
		defaultTerminalStops()
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("test command exited %d: %s", res.ExitCode, res.Stderr)
		}
		if err == nil {
			r.Layers = res.Layers
		}
	}
	if err != nil {
		r.Sandbox.Detail = "a command under the default policy failed: " + err.Error()
		r.StrictOK = false
	} else {
		r.Sandbox.OK = true
		r.Sandbox.Detail = fmt.Sprintf("a command ran under the default policy with %d layers", len(r.Layers))
	}
	return r
}

// buildCheck says whether this binary is static. One built with cgo (the
// default where a C compiler is installed) is linked against libc, so the
// CLI and every sandbox's init, which is this binary again, pay for the
// dynamic loader at each start: about 8 ms more for a cold
// `agentbox exec` on the project's build machine.
func buildCheck(info *debug.BuildInfo, ok bool) agentbox.Capability {
	c := agentbox.Capability{Name: "build", OK: true, Detail: "static binary (CGO_ENABLED=0)"}
	if !ok {
		c.Detail = "no build information in this binary"
		return c
	}
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" && s.Value == "1" {
			c.OK = false
			c.Detail = "built with cgo: every start of agentbox and of each sandbox's init pays for the dynamic loader; rebuild with CGO_ENABLED=0 go build ./cmd/agentbox"
		}
	}
	return c
}
