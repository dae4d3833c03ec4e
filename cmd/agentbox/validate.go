package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/supervise"
)

func init() { commands = append(commands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [--json] MANIFEST",
		Short: "Check a manifest and summarise what the agent may do",
		Long: `validate loads a manifest strictly and either prints "✅ valid" with a
summary of what the agent may read, write, reach and use, or prints every
problem as FILE:LINE:COL: message. Exit status 0 when valid, 1 when not.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("validate takes exactly one manifest file, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := loadRunnable(args[0])
			if err == nil {
				m.Warnings = append(m.Warnings, unenforcedWarnings(m)...)
				slices.SortStableFunc(m.Warnings, func(a, b policy.ManifestError) int {
					return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
				})
			}
			if asJSON {
				return printValidateJSON(cmd.OutOrStdout(), args[0], m, err)
			}
			return printValidate(cmd.OutOrStdout(), cmd.ErrOrStderr(), m, err)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"valid","errors","warnings","manifest"} as JSON on stdout`)
	return cmd
}

// loadRunnable loads a manifest and checks what a run of it would refuse
// on this machine (Manifest.CheckRunnable): validate and run both call it,
// so that validate passes only what run accepts.
func loadRunnable(file string) (*policy.Manifest, error) {
	m, err := policy.LoadManifest(file)
	if err != nil {
		return nil, err
	}
	// Without a state directory the run fails on its own, saying why; the
	// default audit log is then not checked here.
	stateDir, _ := paths.StateDir()
	if err := m.CheckRunnable(stateDir); err != nil {
		return nil, err
	}
	return m, nil
}

// unenforcedWarnings are what run warns of as "not enforced yet"
// (supervise.Unenforced), a warning for each key, where the manifest sets it.
func unenforcedWarnings(m *policy.Manifest) []policy.ManifestError {
	var out []policy.ManifestError
	for _, u := range supervise.Unenforced(m) {
		key, _, _ := strings.Cut(u, " ") // "limits.max_tokens (50000)", "audit.alert_on NAME (never raised: …)"
		pos, _ := m.KeyPos(key)
		msg := u + " is not enforced yet: run carries it into the audit log, but nothing holds the agent to it"
		if key == "audit.alert_on" {
			msg = u
		}
		out = append(out, policy.ManifestError{File: m.File, Line: max(pos.Line, 1), Col: max(pos.Col, 1), Msg: msg})
	}
	return out
}

// printValidate prints the summary on stdout, or every error on stderr.
func printValidate(stdout, stderr io.Writer, m *policy.Manifest, err error) error {
	var merrs *policy.ManifestErrors
	switch {
	case errors.As(err, &merrs):
		for _, e := range merrs.List {
			fmt.Fprintln(stderr, escapeLines(e.Error()))
		}
		fmt.Fprintf(stderr, "❌ invalid: %d %s\n", len(merrs.List), plural(len(merrs.List), "error", "errors"))
		return exitWith(exitFailure, nil)
	case err != nil:
		return exitWith(exitFailure, err)
	}
	if _, err := fmt.Fprintf(stdout, "✅ valid: %s\n\n", escapeLines(m.File)); err != nil {
		return err
	}
	// Paths in the summary may come from the disk (a link's target), not
	// the manifest, whose strings were checked: escaped as they are printed.
	var summary strings.Builder
	if err := m.Describe(&summary); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, escapeLines(summary.String())); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nThe memory limit is enforced here by %s.\n", memoryMechanismText(agentbox.MemoryMechanism()))
	for _, w := range m.Warnings {
		fmt.Fprintf(stderr, "%s:%d:%d: warning: %s\n", escapeLines(w.File), w.Line, w.Col, escapeLines(w.Msg))
	}
	return nil
}

// validateResult is the --json output.
type validateResult struct {
	Valid bool `json:"valid"`
	// MemoryMechanism says how max_memory_mb is enforced on this machine.
	MemoryMechanism string            `json:"memory_mechanism,omitempty"`
	Errors          []validateProblem `json:"errors"`
	Warnings        []validateProblem `json:"warnings"`
	Manifest        *policy.Manifest  `json:"manifest,omitempty"`
}

type validateProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

func problems(list []policy.ManifestError) []validateProblem {
	out := make([]validateProblem, len(list))
	for i, e := range list {
		out[i] = validateProblem{File: e.File, Line: e.Line, Col: e.Col, Message: e.Msg}
	}
	return out
}

func printValidateJSON(stdout io.Writer, file string, m *policy.Manifest, err error) error {
	res := validateResult{Valid: err == nil, Errors: []validateProblem{}, Warnings: []validateProblem{}}
	var merrs *policy.ManifestErrors
	switch {
	case errors.As(err, &merrs):
		res.Errors = problems(merrs.List)
	case err != nil:
		// The file could not be read: no position to give.
		res.Errors = []validateProblem{{File: file, Message: err.Error()}}
	default:
		res.Manifest = m
		res.Warnings = problems(m.Warnings)
		res.MemoryMechanism = agentbox.MemoryMechanism()
	}
	enc := newJSONEncoder(stdout)
	enc.SetIndent("", "  ")
	if werr := enc.Encode(res); werr != nil {
		return werr
	}
	if err != nil {
		return exitWith(exitFailure, nil)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// memoryMechanismText explains agentbox.MemoryMechanism's answer.
func memoryMechanismText(m string) string {
	if m == "rlimit" {
		return "RLIMIT_DATA on each process plus a resident-memory monitor over the tree (no cgroup is available)"
	}
	return "a " + m + " memory limit on the whole process tree"
}
