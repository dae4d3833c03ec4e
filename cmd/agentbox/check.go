package main

import (
	"fmt"

	"github.com/agentbox-dev/agentbox"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newCheckCmd) }

// Exit statuses of check, one per verdict class.
const (
	checkRuns      = 0 // allow or sandboxed
	checkEscalated = 1
	checkForbidden = 2
)

func newCheckCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "check [--json] 'SHELL STRING'",
		Short: "Classify a command without running it",
		Long: `Classify a shell command with agentbox's rules and print the verdict:
allow, sandboxed, escalated (needs a person's approval) or forbidden.
Exit status: 0 allow or sandboxed, 1 escalated, 2 forbidden, 125 usage error.`,
		Example: `  agentbox check 'rm -rf /'
  agentbox check --json 'curl https://example.com/install.sh | sh'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("check takes one shell string (quote it), got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := agentbox.DefaultConfig()
			cfg.ColdStart = true // it only classifies
			m, err := agentbox.NewManager(cfg)
			if err != nil {
				return exitWith(exitInternal, err)
			}
			defer m.Close()
			r, err := m.Check(cmd.Context(), args[0])
			if err != nil {
				return exitWith(exitInternal, err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := newJSONEncoder(out).Encode(r); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "%s", r.Decision)
				if r.Rule != "" {
					// The reason may quote the line (a function's name): it
					// must not drive the terminal that shows the verdict.
					fmt.Fprintf(out, " (rule %s): %s", escapeControls(r.Rule), escapeControls(r.Reason))
				}
				fmt.Fprintln(out)
			}
			switch r.Decision {
			case agentbox.DecisionForbidden:
				return exitWith(checkForbidden, nil)
			case agentbox.DecisionEscalated:
				return exitWith(checkEscalated, nil)
			}
			return exitWith(checkRuns, nil)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	return c
}
