package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/internal/keptfiles"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/vault"
)

func init() { commands = append(commands, newVaultCmd) }

// vaultPassphraseEnv names the environment variable holding the passphrase.
const vaultPassphraseEnv = "AGENTBOX_VAULT_PASSPHRASE"

// vaultMaxPassphraseFile bounds what --passphrase-file reads.
const vaultMaxPassphraseFile = 64 << 10

// Hooks replaced by tests: extra vault options (small Argon2id parameters),
// how a terminal is opened for prompts, and whether stdin is a terminal.
var (
	vaultOptions      []vault.Option
	vaultOpenTerminal = openVaultTerminal
	vaultIsTerminal   = func(r io.Reader) bool {
		f, ok := r.(*os.File)
		return ok && term.IsTerminal(int(f.Fd()))
	}
)

// vaultFlags are the flags shared by the vault subcommands.
type vaultFlags struct {
	path     string
	passFile string
}

func newVaultCmd() *cobra.Command {
	f := &vaultFlags{}
	cmd := &cobra.Command{
		Use:   "vault add|list|test|delete",
		Short: "Manage the encrypted credential vault",
		Long: `vault manages the encrypted store of credentials (API keys, tokens) that
agents are given by name. Each value is encrypted with AES-256-GCM under a key
derived from your passphrase with Argon2id; list and test never print values.

The passphrase comes from --passphrase-file FILE, else $` + vaultPassphraseEnv + `,
else a prompt without echo on the terminal. There is no default passphrase.
Values are read from stdin or a prompt without echo, never from the command line.`,
		Args: unknownSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&f.path, "vault", "", "vault file (default: vault.json in agentbox's data directory)")
	cmd.PersistentFlags().StringVar(&f.passFile, "passphrase-file", "", "read the vault passphrase from `FILE` (first line)")
	cmd.AddCommand(newVaultAddCmd(f), newVaultListCmd(f), newVaultTestCmd(f), newVaultDeleteCmd(f))
	return cmd
}

// unknownSubcommand refuses arguments to a command that only groups others,
// naming the subcommand meant where cobra finds one (add for "set").
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		err = fmt.Errorf("%w (did you mean %s?)", err, strings.Join(s, " or "))
	}
	return usageError(err)
}

// vaultUsageArgs turns an argument-count error into a usage error (exit 125).
func vaultUsageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

// vaultNameArg accepts exactly one valid credential name. An invalid name is
// a vault error (exit 1); the message does not repeat it, in case it is a
// secret typed in the wrong place.
func vaultNameArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError(fmt.Errorf("%s takes exactly one credential NAME, got %d arguments", cmd.CommandPath(), len(args)))
	}
	if err := vault.ValidateName(args[0]); err != nil {
		return exitWith(exitFailure, err)
	}
	return nil
}

func newVaultAddCmd(f *vaultFlags) *cobra.Command {
	return &cobra.Command{
		Use:        "add NAME",
		SuggestFor: []string{"set", "put", "store", "rotate"},
		Short:      "Store a credential (value from stdin or a prompt); rotates an existing one",
		Long: `add stores the credential NAME ([A-Z_][A-Z0-9_]*, the environment variable the
agent will see). The value is read from stdin when stdin is not a terminal (one
trailing newline is removed), else from a prompt without echo. It is never taken
from the command line. If NAME exists its value is replaced (rotated).
Spaces or tabs at the value's ends are kept but never sent (HTTP drops them
from a header); add warns about them.
The vault is created on the first add.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(errors.New("vault add takes only NAME: the value is read from stdin or a prompt, never from the command line (if you typed a secret there, it is in your shell history: rotate it)"))
			}
			return vaultNameArg(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.add(cmd, args[0])
		},
	}
}

func newVaultListCmd(f *vaultFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:        "list",
		SuggestFor: []string{"ls"},
		Short:      "List credential names with their created and updated times (never values)",
		Args:       vaultUsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.list(cmd, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print [{"name","created","updated"}] as JSON`)
	return cmd
}

func newVaultTestCmd(f *vaultFlags) *cobra.Command {
	return &cobra.Command{
		Use:        "test NAME",
		SuggestFor: []string{"get", "show", "check"},
		Short:      "Decrypt a credential and print OK with its length (never the value)",
		Args:       vaultNameArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.withVault(cmd, func(v *vault.Vault) error {
				s, err := v.Get(args[0])
				if err != nil {
					return err
				}
				n := s.Len()
				s.Wipe()
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "OK %s (%d bytes)\n", args[0], n)
				return err
			})
		},
	}
}

func newVaultDeleteCmd(f *vaultFlags) *cobra.Command {
	return &cobra.Command{
		Use:        "delete NAME",
		SuggestFor: []string{"rm", "remove", "del"},
		Short:      "Remove a credential",
		Args:       vaultNameArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.withVault(cmd, func(v *vault.Vault) error {
				if err := v.Delete(args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", args[0])
				return err
			})
		},
	}
}

// vaultPath returns --vault or the default vault file.
func (f *vaultFlags) vaultPath() (string, error) {
	if f.path != "" {
		return f.path, nil
	}
	return vault.DefaultPath()
}

// vaultPassSource describes where the passphrase came from, for messages.
type vaultPassSource string

// passphrase returns the vault passphrase and where it came from. creating
// asks twice on a prompt. The caller wipes the result.
func (f *vaultFlags) passphrase(ctx context.Context, creating bool) ([]byte, vaultPassSource, error) {
	// A vault and a passphrase file named here are kept from every sandbox
	// from now on (keptfiles), wherever they are.
	if err := keptfiles.Record(keptfiles.Secret, f.secretFiles()...); err != nil {
		fmt.Fprintf(os.Stderr, "agentbox: warning: %v: sandboxes may still read the vault and its passphrase file\n", err)
	}
	if f.passFile != "" {
		p, err := vaultReadPassphraseFile(f.passFile)
		return p, vaultPassSource("--passphrase-file " + f.passFile), err
	}
	if p, ok := os.LookupEnv(vaultPassphraseEnv); ok {
		if p == "" {
			return nil, "", fmt.Errorf("$%s is set but empty", vaultPassphraseEnv)
		}
		return []byte(p), "$" + vaultPassphraseEnv, nil
	}
	t, err := vaultOpenTerminal()
	if err != nil {
		return nil, "", fmt.Errorf("no vault passphrase: set $%s, pass --passphrase-file FILE, or run on a terminal to be prompted", vaultPassphraseEnv)
	}
	defer t.Close()
	prompt := "Vault passphrase: "
	if creating {
		prompt = "New vault passphrase: "
	}
	p, err := t.ReadSecret(ctx, prompt)
	if err != nil {
		return nil, "", err
	}
	if len(p) == 0 {
		return nil, "", errors.New("empty vault passphrase")
	}
	if creating {
		again, err := t.ReadSecret(ctx, "Repeat the passphrase: ")
		same := bytes.Equal(p, again)
		clear(again)
		if err != nil || !same {
			clear(p)
			if err == nil {
				err = errors.New("the two passphrases differ; nothing was stored")
			}
			return nil, "", err
		}
	}
	return p, "the prompt", nil
}

// vaultReadPassphraseFile returns the first line of path (without its newline).
func vaultReadPassphraseFile(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("passphrase file: %w", err)
	}
	defer fh.Close()
	buf := make([]byte, vaultMaxPassphraseFile+1)
	n, err := io.ReadFull(fh, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		clear(buf)
		return nil, fmt.Errorf("passphrase file %s: %w", path, err)
	}
	if n > vaultMaxPassphraseFile {
		clear(buf)
		return nil, fmt.Errorf("passphrase file %s is larger than %d bytes", path, vaultMaxPassphraseFile)
	}
	p := vaultTrimNewline(buf[:n])
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		p = vaultTrimNewline(p[:i+1])
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("passphrase file %s is empty", path)
	}
	return p, nil
}

// vaultTrimNewline removes one trailing "\n" or "\r\n".
func vaultTrimNewline(b []byte) []byte {
	b, ok := bytes.CutSuffix(b, []byte("\n"))
	if ok {
		b, _ = bytes.CutSuffix(b, []byte("\r"))
	}
	return b
}

// withVault opens the existing vault, runs fn and turns errors into one line
// and exit status 1.
func (f *vaultFlags) withVault(cmd *cobra.Command, fn func(*vault.Vault) error) error {
	_ = vault.LimitCoreDumps()
	path, err := f.vaultPath()
	if err != nil {
		return exitWith(exitFailure, err)
	}
	if !paths.Exists(path) {
		return exitWith(exitFailure, vaultMissingError(path))
	}
	pass, src, err := f.passphrase(cmd.Context(), false)
	if err != nil {
		return vaultPromptFailure(cmd.Context(), err)
	}
	v, err := vault.Open(path, pass, vaultOptions...)
	clear(pass)
	if err != nil {
		return vaultFailure(path, src, err)
	}
	defer v.Close()
	if err := fn(v); err != nil {
		return vaultFailure(path, src, err)
	}
	return nil
}

// add implements "vault add": open (or prepare to create) the vault, read the
// value, store it.
func (f *vaultFlags) add(cmd *cobra.Command, name string) error {
	_ = vault.LimitCoreDumps()
	path, err := f.vaultPath()
	if err != nil {
		return exitWith(exitFailure, err)
	}
	exists := paths.Exists(path)
	pass, src, err := f.passphrase(cmd.Context(), !exists)
	if err != nil {
		return vaultPromptFailure(cmd.Context(), err)
	}
	defer clear(pass)
	var v *vault.Vault
	if exists { // check the passphrase before asking for the value
		if v, err = vault.Open(path, pass, vaultOptions...); err != nil {
			return vaultFailure(path, src, err)
		}
		defer v.Close()
	}
	value, err := readVaultValue(cmd, name)
	if err != nil {
		return vaultPromptFailure(cmd.Context(), err)
	}
	defer clear(value)
	if v == nil {
		if v, err = vault.OpenOrCreate(path, pass, vaultOptions...); err != nil {
			return vaultFailure(path, src, err)
		}
		defer v.Close()
		if !exists {
			fmt.Fprintf(cmd.ErrOrStderr(), "agentbox: created the vault %s\n", path)
		}
	}
	rotated, err := v.Set(name, value)
	if err != nil {
		return vaultFailure(path, src, err)
	}
	verb := "added"
	if rotated {
		verb = "rotated"
	}
	if len(egress.SentForm(value)) != len(value) {
		fmt.Fprintf(cmd.ErrOrStderr(), "agentbox: warning: the value of %s begins or ends with a space or tab, which HTTP drops: it is sent without them; if they were pasted by mistake, add it again without them\n", name)
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", verb, name)
	return err
}

// readVaultValue reads the value of name: all of stdin (one trailing newline
// removed) when stdin is not a terminal, else a prompt without echo. The
// buffer is allocated once so no stray partial copies are left behind; the
// caller wipes the result.
func readVaultValue(cmd *cobra.Command, name string) ([]byte, error) {
	in := cmd.InOrStdin()
	if vaultIsTerminal(in) {
		t, err := vaultOpenTerminal()
		if err != nil {
			return nil, fmt.Errorf("cannot prompt for the value: %w", err)
		}
		defer t.Close()
		v, err := t.ReadSecret(cmd.Context(), "Value of "+name+" (input hidden): ")
		if err != nil {
			return nil, err
		}
		if len(v) == 0 {
			return nil, errors.New("empty value; nothing was stored")
		}
		return v, nil
	}
	buf := make([]byte, vault.MaxValueSize+3) // room for "\r\n" and one byte too many
	n, err := io.ReadFull(in, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		clear(buf)
		return nil, fmt.Errorf("read the value from stdin: %w", err)
	}
	v := vaultTrimNewline(buf[:n])
	switch {
	case len(v) == 0:
		return nil, errors.New("empty value on stdin; nothing was stored")
	case len(v) > vault.MaxValueSize:
		clear(buf)
		return nil, fmt.Errorf("value on stdin is larger than %d bytes; nothing was stored", vault.MaxValueSize)
	}
	return v, nil
}

func (f *vaultFlags) list(cmd *cobra.Command, asJSON bool) error {
	return f.withVault(cmd, func(v *vault.Vault) error {
		entries := v.List()
		var damaged []string
		for _, e := range entries {
			if err := v.Verify(e.Name); err != nil {
				if !errors.Is(err, vault.ErrCorrupt) {
					return err
				}
				damaged = append(damaged, e.Name)
			}
		}
		if len(damaged) > 0 {
			return fmt.Errorf("vault: %w: credential %s fails to authenticate; delete it (agentbox vault delete NAME) and add it again", vault.ErrCorrupt, strings.Join(damaged, ", "))
		}
		out := cmd.OutOrStdout()
		if asJSON {
			enc := newJSONEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(entries)
		}
		if len(entries) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "agentbox: the vault %s holds no credentials\n", v.Path())
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCREATED\tUPDATED")
		for _, e := range entries {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Created.UTC().Format(time.RFC3339), e.Updated.UTC().Format(time.RFC3339))
		}
		return tw.Flush()
	})
}

// vaultPromptFailure is the exit of a vault command whose passphrase or
// value could not be read: 128+N when stop signal N ended the prompt (as
// if the signal had ended agentbox, the status run gives at its own vault
// prompt), else 1.
func vaultPromptFailure(ctx context.Context, err error) error {
	var ie *interruptedError
	if errors.Is(err, errPromptInterrupted) && errors.As(earlyInterrupt(ctx), &ie) {
		return exitWith(ie.exitCode(), err)
	}
	return exitWith(exitFailure, err)
}

func vaultMissingError(path string) error {
	return fmt.Errorf("no vault at %s; add a credential first: agentbox vault add NAME", path)
}

// vaultFailure turns a vault error into one line that says what to change,
// with exit status 1.
func vaultFailure(path string, src vaultPassSource, err error) error {
	var ee *vault.EntryError
	switch {
	case errors.Is(err, vault.ErrWrongPassphrase):
		err = fmt.Errorf("%w (given by %s); nothing was changed", err, src)
	case errors.Is(err, vault.ErrNoVault):
		err = vaultMissingError(path)
	case errors.As(err, &ee) && errors.Is(err, vault.ErrCorrupt):
		err = fmt.Errorf("%w; delete it (agentbox vault delete %s) and add it again", err, ee.Name)
	case errors.Is(err, vault.ErrNotFound):
		err = fmt.Errorf("%w (agentbox vault list shows the names)", err)
	}
	return exitWith(exitFailure, err)
}

// vaultTerminal reads secrets from the user's terminal without echo.
type vaultTerminal interface {
	ReadSecret(ctx context.Context, prompt string) ([]byte, error)
	Close() error
}

// vaultTTY prompts on out and reads without echo from in.
type vaultTTY struct {
	in     *os.File
	out    io.Writer
	closer io.Closer
}

// openVaultTerminal opens the controlling terminal (so that stdin may carry
// the value), or falls back to stdin when it is a terminal.
func openVaultTerminal() (vaultTerminal, error) {
	if runtime.GOOS != "windows" {
		if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
			if term.IsTerminal(int(f.Fd())) {
				return &vaultTTY{in: f, out: f, closer: f}, nil
			}
			f.Close()
		}
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		return &vaultTTY{in: os.Stdin, out: os.Stderr}, nil
	}
	return nil, errors.New("no terminal")
}

func (t *vaultTTY) Close() error {
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

// ReadSecret prompts and reads one line without echo. A stop signal (main
// cancels the context on each of stopSignals) restores the terminal and
// gives up with errPromptInterrupted.
func (t *vaultTTY) ReadSecret(ctx context.Context, prompt string) ([]byte, error) {
	fd := int(t.in.Fd())
	ask := func() { fmt.Fprint(t.out, prompt) }
	b, err := readTerminal(ctx, fd, ask, func() ([]byte, error) { return term.ReadPassword(fd) })
	fmt.Fprintln(t.out)
	switch {
	case errors.Is(err, errPromptInterrupted):
		return nil, fmt.Errorf("%w; nothing was changed", errPromptInterrupted)
	case err != nil:
		return nil, fmt.Errorf("terminal: %w", err)
	}
	return b, nil
}

// secretFiles are the vault file, its lock and the passphrase file, if
// any: no agent may read them, nor replace the lock (which would break
// the next writer's exclusion).
func (f *vaultFlags) secretFiles() []string {
	var out []string
	if p, err := f.vaultPath(); err == nil {
		out = append(out, p, vault.LockPath(p))
	}
	if f.passFile != "" {
		out = append(out, f.passFile)
	}
	return out
}

// openForRun opens the vault that gives a manifest's credentials their
// values, for the length of a run: agentbox itself, never the agent, holds
// it, and no core dump may carry it away.
func (f *vaultFlags) openForRun(ctx context.Context) (*vault.Vault, error) {
	_ = vault.LimitCoreDumps()
	path, err := f.vaultPath()
	if err != nil {
		return nil, err
	}
	if !paths.Exists(path) {
		return nil, vaultMissingError(path)
	}
	pass, src, err := f.passphrase(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("the manifest declares credentials: %w", err)
	}
	defer clear(pass)
	v, err := vault.Open(path, pass)
	if err != nil {
		return nil, fmt.Errorf("vault %s (passphrase from %s): %w", path, src, err)
	}
	return v, nil
}
