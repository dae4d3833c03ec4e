package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/supervise"
)

func init() { commands = append(commands, newKillCmd) }

// killReport is what `agentbox kill --json` prints: the agent killed, or
// the agents an ambiguous name matches.
type killReport struct {
	Killed    *supervise.Record  `json:"killed,omitempty"`
	ElapsedMS float64            `json:"elapsed_ms,omitempty"`
	Error     string             `json:"error,omitempty"`
	Matches   []supervise.Record `json:"matches,omitempty"`
}

func newKillCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "kill ID|NAME",
		Short: "Kill a running agent's whole process tree",
		Long: `kill ends a running agent (see "agentbox ps") and every process it started,
at once. Its "agentbox run" exits 137 and logs agent_killed with who asked.
A name that several running agents share is refused: give the ID.
Exit status 0 when the agent is gone, 1 when no running agent matches.
--json prints {"killed": RECORD, "elapsed_ms": N}, or for an ambiguous name
{"error": ..., "matches": [RECORD...]}; other errors go to stderr.`,
		Example: "  agentbox kill worker\n  agentbox kill 3f9a2c1b --json",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("kill takes one agent ID or name, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := supervise.OpenRegistry("")
			if err != nil {
				return exitWith(exitFailure, err)
			}
			res, err := reg.Kill(args[0], "agentbox kill")
			var amb *supervise.AmbiguousError
			switch {
			case errors.As(err, &amb) && asJSON:
				_ = printJSON(cmd.OutOrStdout(), killReport{Error: amb.Error(), Matches: amb.Matches})
				return exitWith(exitFailure, nil)
			case errors.As(err, &amb):
				fmt.Fprintf(cmd.ErrOrStderr(), "agentbox: %d running agents are named %q; kill one by ID:\n", len(amb.Matches), amb.Name)
				for _, r := range amb.Matches {
					fmt.Fprintf(cmd.ErrOrStderr(), "  %s  pid %d  started %s  %s\n", r.ID, r.Pid, r.Started.Local().Format(time.DateTime), escapeControls(r.Manifest))
				}
				return exitWith(exitFailure, nil)
			case errors.Is(err, supervise.ErrNotFound):
				return exitWith(exitFailure, fmt.Errorf("%v (agentbox ps lists the running agents)", err))
			case err != nil:
				return exitWith(exitFailure, err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), killReport{Killed: &res.Record, ElapsedMS: float64(res.Elapsed.Microseconds()) / 1000})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "🛑 Killed agent %s (%s): process tree gone in %s\n",
				escapeControls(res.Record.Name), res.Record.ID, res.Elapsed.Round(10*time.Microsecond))
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON on stdout")
	return c
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := newJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
