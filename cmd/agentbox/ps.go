package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/supervise"
)

func init() { commands = append(commands, newPsCmd) }

func newPsCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "ps [--json]",
		Short: "List the running agents",
		Long: `ps lists the agents started by "agentbox run" that are still running, from
agentbox's state directory. Entries of agents whose process has died are
removed as they are found.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usageError(fmt.Errorf("ps takes no arguments, got %q", args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := supervise.OpenRegistry("")
			if err != nil {
				return exitWith(exitFailure, err)
			}
			list, err := reg.List()
			if err != nil {
				return exitWith(exitFailure, err)
			}
			if asJSON {
				return printPsJSON(cmd.OutOrStdout(), list)
			}
			return printPs(cmd.OutOrStdout(), list, time.Now())
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the agents as a JSON array")
	return c
}

func printPsJSON(w io.Writer, list []supervise.Record) error {
	if list == nil {
		list = []supervise.Record{}
	}
	return printJSON(w, list)
}

func printPs(w io.Writer, list []supervise.Record, now time.Time) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no running agents")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPID\tUPTIME\tMEMORY\tMANIFEST")
	for _, r := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, escapeControls(r.Name), r.Pid,
			now.Sub(r.Started).Round(time.Second), r.Memory, escapeControls(r.Manifest))
	}
	return tw.Flush()
}
