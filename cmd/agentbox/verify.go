package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/audit"
)

func init() { commands = append(commands, newVerifyCmd) }

func newVerifyCmd() *cobra.Command {
	var asJSON bool
	var key string
	cmd := &cobra.Command{
		Use:   "verify [--json] [--key VERIFIER_KEY] FILE",
		Short: "Check an audit log's hash chain and signed checkpoints",
		Long: `verify recomputes every entry's hash, follows the chain from the first entry
to the last, and checks the log against every checkpoint signed with this
machine's audit key (kept beside the log and in agentbox's state directory).
It prints "✅ intact, ..." and exits 0, or names the first bad entry and the
kind of tampering (edited, rewritten, deleted, reordered, inserted,
truncated, rechained, forged_checkpoint, malformed) and exits 1.

To verify a log on another machine, pass the verifier key from
STATE/audit/key.pub with --key.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("verify takes exactly one audit log file, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := audit.Verify(args[0], audit.VerifyOptions{VerifierKey: key})
			if err != nil {
				return exitWith(exitFailure, verifyError(args[0], err))
			}
			if asJSON {
				enc := newJSONEncoder(cmd.OutOrStdout())
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := printVerify(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep); err != nil {
				return err
			}
			if !rep.OK {
				return exitWith(exitFailure, nil)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON on stdout")
	cmd.Flags().StringVar(&key, "key", "", "verifier key of the checkpoints (default: the audit key in the state directory)")
	return cmd
}

// verifyError turns the errors of audit.Verify into one line that says
// what to do.
func verifyError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("verify: %s: no such audit log", path)
	case errors.Is(err, audit.ErrNoKey):
		return fmt.Errorf("verify: %w; give it with --key", err)
	}
	return fmt.Errorf("verify: %w", err)
}

// printVerify prints the verdict: ✅ on stdout, ❌ on stderr, one line each,
// then any warnings on stderr.
func printVerify(stdout, stderr io.Writer, rep audit.Report) error {
	if !rep.OK {
		where := ""
		if rep.FirstBad > 0 {
			where = fmt.Sprintf(" at entry %d", rep.FirstBad)
		}
		hint := ""
		if rep.Kind == audit.KindMalformed && rep.FirstBad == 1 {
			hint = " (or this is not an agentbox audit log)"
		}
		fmt.Fprintf(stderr, "❌ tampered%s (%s): %s%s\n", where, rep.Kind, escapeControls(rep.Problem), hint)
		printRotations(stderr, rep)
		printVerifyWarnings(stderr, rep)
		return nil
	}
	var line string
	switch {
	case rep.Entries == 0:
		line = "✅ intact, empty log (no entries)"
	case rep.Checkpoints == 0:
		line = fmt.Sprintf("✅ intact, entries 1–%d, chain unbroken, no signed checkpoint yet (the chain alone cannot reveal a log rewritten from scratch)", rep.Entries)
	default:
		line = fmt.Sprintf("✅ intact, entries 1–%d, chain unbroken, checkpoint %d signed", rep.Entries, rep.Checkpoints)
		if rep.Signed < uint64(rep.Entries) {
			line += fmt.Sprintf(" (covers entries 1–%d; %d–%d are not signed yet)", rep.Signed, rep.Signed+1, rep.Entries)
		}
	}
	if _, err := fmt.Fprintln(stdout, line); err != nil {
		return err
	}
	printRotations(stdout, rep)
	if rep.TornBytes > 0 {
		fmt.Fprintf(stdout, "⚠️  the last line is cut short (%d bytes: a writer crashed mid-append); it is not an entry and the entries before it verify\n", rep.TornBytes)
	}
	printVerifyWarnings(stderr, rep)
	return nil
}

func printVerifyWarnings(w io.Writer, rep audit.Report) {
	for _, m := range rep.Warnings {
		// A warning may repeat a writer's alert from the log, which
		// anyone who can write the log can forge.
		fmt.Fprintf(w, "⚠️  %s\n", escapeControls(m))
	}
}

// printRotations names the earlier logs at this path that were rotated away.
func printRotations(w io.Writer, rep audit.Report) {
	for _, r := range rep.Rotated {
		fmt.Fprintf(w, "ℹ️  an earlier log here (entries 1–%d, head %.12s…) was rotated to %s at %s\n", r.Size, r.Head, r.To, r.Time.UTC().Format(time.RFC3339))
	}
}
