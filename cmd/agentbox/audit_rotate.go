package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/keptfiles"
	"github.com/agentbox-dev/agentbox/supervise"
)

func newAuditRotateCmd() *cobra.Command {
	var logPath, to string
	cmd := &cobra.Command{
		Use:   "rotate --log FILE [--to NEWFILE]",
		Short: "Move an audit log away so that the next run starts a new one",
		Long: `rotate moves an intact audit log, its checkpoints and the state directory's
copy of them to NEWFILE (default FILE.YYYYMMDDTHHMMSSZ, the time in UTC),
after signing its last entry, and records in the state directory that the
chain at FILE was closed there. Both logs then pass agentbox verify.

A log moved, truncated or deleted any other way stays caught by verify, and
agentbox run refuses to start a new log at its path. rotate refuses a log
that does not verify and one a writer has open: an agent (see agentbox ps)
or any program using the audit package.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usageError(fmt.Errorf("audit rotate takes no arguments (got %q); name the log with --log FILE", args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if logPath == "" {
				return usageError(errors.New("audit rotate: --log FILE is required"))
			}
			if to == "" {
				to = logPath + "." + time.Now().UTC().Format("20060102T150405Z")
			}
			r, err := audit.Rotate(logPath, to, audit.RotateOptions{})
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return exitWith(exitInternal, fmt.Errorf("audit rotate: %s: no such audit log; check the --log path", logPath))
			case errors.Is(err, audit.ErrLogInUse):
				if a, ok := agentWriting(logPath); ok {
					return exitWith(exitFailure, fmt.Errorf("audit rotate: agent %s (id %s) is writing to %s; rotate it after the agent exits", a.Name, a.ID, logPath))
				}
				return exitWith(exitFailure, fmt.Errorf("audit rotate: %w", err))
			case err != nil:
				return exitWith(exitFailure, fmt.Errorf("audit rotate: %w", err))
			}
			// The rotated log is kept from every later sandbox, as the
			// log was (found by red-team round 53).
			if err := keptfiles.Record(keptfiles.Log, r.To); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "⚠️  %s is not kept read-only in later sandboxes: %v\n", r.To, err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "✅ rotated %s (entries 1–%d, signed) to %s; the next run starts a new log at %s\n", r.From, r.Size, r.To, r.From)
			return err
		},
	}
	cmd.Flags().StringVar(&logPath, "log", "", "the audit log file to rotate (required)")
	cmd.Flags().StringVar(&to, "to", "", "where to move it (default FILE.YYYYMMDDTHHMMSSZ)")
	return cmd
}

// agentWriting names the running agent that writes to the log at path, if
// the registry knows one. Rotate's lock decides whether a writer has the
// log open (an agent, or any program using the audit package); the
// registry only names the agent in the refusal.
func agentWriting(path string) (supervise.Record, bool) {
	reg, err := supervise.OpenRegistry("")
	if err != nil {
		return supervise.Record{}, false
	}
	list, err := reg.List()
	if err != nil {
		return supervise.Record{}, false
	}
	want := resolvedPath(path)
	for _, r := range list {
		if r.AuditLog != "" && resolvedPath(r.AuditLog) == want {
			return r, true
		}
	}
	return supervise.Record{}, false
}

// resolvedPath is path made absolute, with symlinks resolved when it exists.
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
