package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/audit"
)

func init() { commands = append(commands, newAuditCmd) }

// auditResourceWidth bounds the resource column; --json prints it whole.
const auditResourceWidth = 80

func newAuditCmd() *cobra.Command {
	var (
		logPath string
		f       audit.Filter
		last    time.Duration
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "audit --log FILE [--deny] [--last DUR] [--agent NAME] [--type EVENT] [--limit N] [--json]",
		Short: "Show the events of an audit log",
		Long: `audit prints the events of an audit log, oldest first, in aligned columns
(time in UTC, agent, event, decision, resource, rule) or, with --json, one
JSON object a line. It does not verify the log: use agentbox verify. To
start a new log at a path, use agentbox audit rotate.

Event types: ` + strings.Join(audit.EventTypes(), " "),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usageError(fmt.Errorf("audit takes no arguments (got %q); name the log with --log FILE", args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case logPath == "":
				return usageError(errors.New("audit: --log FILE is required"))
			case cmd.Flags().Changed("last") && last <= 0:
				return usageError(fmt.Errorf("audit: --last %v must be a positive duration, e.g. 30m or 24h", last))
			case cmd.Flags().Changed("limit") && f.Limit <= 0:
				return usageError(fmt.Errorf("audit: --limit %d must be a positive number of events", f.Limit))
			case f.Type != "" && !audit.KnownEventType(f.Type):
				return usageError(fmt.Errorf("audit: unknown --type %q; use one of: %s", f.Type, strings.Join(audit.EventTypes(), " ")))
			}
			if last > 0 {
				f.Since = time.Now().Add(-last)
			}
			evs, err := audit.Query(logPath, f)
			var bad *audit.BadLinesError
			if err != nil && !errors.As(err, &bad) {
				return auditQueryError(logPath, err)
			}
			switch {
			case asJSON:
				err = printAuditJSON(cmd.OutOrStdout(), evs)
			case len(evs) == 0:
				_, err = fmt.Fprintf(cmd.ErrOrStderr(), "no matching events in %s\n", logPath)
			default:
				err = printAuditTable(cmd.OutOrStdout(), evs)
			}
			if err != nil || bad == nil {
				return err
			}
			return printBadLines(cmd.ErrOrStderr(), bad)
		},
	}
	cmd.AddCommand(newAuditRotateCmd())
	fl := cmd.Flags()
	fl.StringVar(&logPath, "log", "", "the audit log file (required)")
	fl.BoolVar(&f.DenyOnly, "deny", false, "only denied events")
	fl.DurationVar(&last, "last", 0, "only events of the last DUR (e.g. 30m, 24h)")
	fl.StringVar(&f.Agent, "agent", "", "only events of the agent with this name or id")
	fl.StringVar(&f.Type, "type", "", "only events of this type")
	fl.IntVar(&f.Limit, "limit", 0, "only the most recent N matching events")
	fl.BoolVar(&asJSON, "json", false, "print one JSON object a line")
	return cmd
}

// auditQueryError maps an error of audit.Query that kept it from reading
// the log (missing, a directory, not permitted) to exit status 125, like a
// bad argument.
func auditQueryError(logPath string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return exitWith(exitInternal, fmt.Errorf("audit: %s: no such audit log; check the --log path", logPath))
	}
	return exitWith(exitInternal, err)
}

// printBadLines warns about each line of the log that is not an entry
// (after the events of the others were printed) and exits 1.
func printBadLines(w io.Writer, bad *audit.BadLinesError) error {
	for _, l := range bad.Lines {
		fmt.Fprintf(w, "⚠️  %s line %d is not an audit entry, skipped: %v\n", bad.Path, l.Line, l.Err)
	}
	if n := bad.Count - len(bad.Lines); n > 0 {
		fmt.Fprintf(w, "⚠️  %s: %d more lines are not audit entries, skipped\n", bad.Path, n)
	}
	return exitWith(exitFailure, fmt.Errorf("audit: %s: %s; run agentbox verify %s", bad.Path, badLinesPhrase(bad.Count), bad.Path))
}

func badLinesPhrase(n int) string {
	if n == 1 {
		return "1 line is not an audit entry"
	}
	return fmt.Sprintf("%d lines are not audit entries", n)
}

func printAuditJSON(w io.Writer, evs []audit.Event) error {
	enc := newJSONEncoder(w)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

func printAuditTable(w io.Writer, evs []audit.Event) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tAGENT\tEVENT\tDECISION\tRESOURCE\tRULE")
	for _, e := range evs {
		agent := e.AgentName
		if agent == "" {
			agent = e.AgentID
		}
		decision := "allowed"
		if !e.Allowed {
			decision = "denied"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n",
			e.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z"),
			auditCell(agent, 32), auditCell(e.EventType, 32), decision,
			auditCell(e.Resource, auditResourceWidth), auditCell(e.Rule, 40))
	}
	return tw.Flush()
}

// auditCell makes a logged string safe to print in a terminal column: the
// log holds what agents did, so its strings may carry escape sequences or
// bidirectional overrides meant to disguise a line. Those are shown as
// \x.. or \u.... escapes; long values are cut to width runes; empty is "-".
func auditCell(s string, width int) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for i, n := 0, 0; i < len(s); n++ {
		if n == width {
			b.WriteString("…")
			break
		}
		i += writeEscaped(&b, s[i:])
	}
	return b.String()
}
