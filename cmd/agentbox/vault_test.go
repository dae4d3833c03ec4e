package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/vault"
)

const vaultTestPass = "test passphrase 123"

// vaultTestEnv points the CLI at a fresh data directory with the passphrase
// in the environment and cheap Argon2id parameters, and returns the vault
// file's path.
func vaultTestEnv(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv(paths.EnvDataDir, dir)
	t.Setenv(vaultPassphraseEnv, vaultTestPass)
	old := vaultOptions
	vaultOptions = []vault.Option{vault.WithKDFParams(vault.KDFParams{Time: 1, MemoryKiB: 64, Threads: 1})}
	oldTerm, oldIsTerm := vaultOpenTerminal, vaultIsTerminal
	vaultOpenTerminal = func() (vaultTerminal, error) { return nil, errors.New("no terminal in tests") }
	t.Cleanup(func() { vaultOptions, vaultOpenTerminal, vaultIsTerminal = old, oldTerm, oldIsTerm })
	return filepath.Join(dir, vault.FileName)
}

// vaultCLI runs the CLI in-process with stdin holding the given bytes.
func vaultCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(in, []byte(stdin), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// mustVaultCLI runs the CLI and fails unless it exits 0.
func mustVaultCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := vaultCLI(t, stdin, args...)
	if code != 0 {
		t.Fatalf("agentbox %v: exit %d, stderr %q", args, code, errOut)
	}
	return out
}

// vaultValue opens the vault directly and returns a stored value.
func vaultValue(t *testing.T, path, name string) string {
	t.Helper()
	v, err := vault.Open(path, []byte(vaultTestPass))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s, err := v.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Wipe()
	return string(s.Bytes())
}

func TestVaultCLILifecycle(t *testing.T) {
	path := vaultTestEnv(t)
	const first, second = "sk-first-VALUE-0001", "sk-second-VALUE-000002"
	var all strings.Builder
	record := func(code int, out, errOut string) (int, string, string) {
		all.WriteString(out + errOut)
		return code, out, errOut
	}

	code, out, errOut := record(vaultCLI(t, first+"\n", "vault", "add", "API_KEY"))
	if code != 0 || out != "added API_KEY\n" || !strings.Contains(errOut, "created the vault "+path) {
		t.Fatalf("first add: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := vaultValue(t, path, "API_KEY"); got != first {
		t.Errorf("stored %q, want %q (one trailing newline removed)", got, first)
	}
	code, out, _ = record(vaultCLI(t, "", "vault", "test", "API_KEY"))
	if code != 0 || out != "OK API_KEY (19 bytes)\n" {
		t.Errorf("test: exit %d, %q", code, out)
	}
	record(vaultCLI(t, "other\n", "vault", "add", "OTHER"))

	code, out, errOut = record(vaultCLI(t, second, "vault", "add", "API_KEY"))
	if code != 0 || out != "rotated API_KEY\n" || errOut != "" {
		t.Fatalf("rotate: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := vaultValue(t, path, "API_KEY"); got != second {
		t.Errorf("after rotation stored %q", got)
	}
	_, out, _ = record(vaultCLI(t, "", "vault", "test", "API_KEY"))
	if out != "OK API_KEY (22 bytes)\n" {
		t.Errorf("test after rotation: %q", out)
	}

	code, out, _ = record(vaultCLI(t, "", "vault", "list"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !strings.HasPrefix(lines[1], "API_KEY ") || !strings.HasPrefix(lines[2], "OTHER ") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	code, out, _ = record(vaultCLI(t, "", "vault", "list", "--json"))
	var entries []vault.Entry
	if err := json.Unmarshal([]byte(out), &entries); err != nil || code != 0 || len(entries) != 2 {
		t.Fatalf("list --json: exit %d, %v\n%s", code, err, out)
	}
	if e := entries[0]; e.Name != "API_KEY" || !e.Updated.After(e.Created) || time.Since(e.Created) > time.Minute {
		t.Errorf("list --json entry %+v: want created kept and updated later after rotation", e)
	}

	code, out, _ = record(vaultCLI(t, "", "vault", "delete", "API_KEY"))
	if code != 0 || out != "deleted API_KEY\n" {
		t.Errorf("delete: exit %d, %q", code, out)
	}
	code, _, errOut = record(vaultCLI(t, "", "vault", "test", "API_KEY"))
	if code != exitFailure || !strings.Contains(errOut, "no such credential: API_KEY") {
		t.Errorf("test after delete: exit %d, %q", code, errOut)
	}
	mustVaultCLI(t, "", "vault", "delete", "OTHER")
	code, out, errOut = record(vaultCLI(t, "", "vault", "list"))
	if code != 0 || out != "" || !strings.Contains(errOut, "holds no credentials") {
		t.Errorf("list of an empty vault: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out := mustVaultCLI(t, "", "vault", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("list --json of an empty vault: %q", out)
	}
	if strings.Contains(all.String(), "VALUE") {
		t.Errorf("a value was printed:\n%s", all.String())
	}
}

func TestVaultCLIValueFromStdin(t *testing.T) {
	path := vaultTestEnv(t)
	for _, tc := range []struct{ stdin, want string }{
		{"plain", "plain"},
		{"one newline\n", "one newline"},
		{"crlf\r\n", "crlf"},
		{"two newlines\n\n", "two newlines\n"},
		{"multi\nline\n", "multi\nline"},
		{" spaces kept ", " spaces kept "},
	} {
		mustVaultCLI(t, tc.stdin, "vault", "add", "V")
		if got := vaultValue(t, path, "V"); got != tc.want {
			t.Errorf("stdin %q stored %q, want %q", tc.stdin, got, tc.want)
		}
	}
}

// Every failure: exit status, one line on stderr, nothing on stdout, and the
// vault file byte for byte as it was.
func TestVaultCLIFailuresChangeNothing(t *testing.T) {
	const secretish = "sk-live-TYPED-AS-A-NAME"
	damageFile := func(t *testing.T, path string) {
		b, _ := os.ReadFile(path)
		os.WriteFile(path, b[:len(b)/2], 0o600)
	}
	damageEntry := func(t *testing.T, path string) {
		b, _ := os.ReadFile(path)
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		e := d["credentials"].([]any)[0].(map[string]any)
		ct, _ := base64.StdEncoding.DecodeString(e["ciphertext"].(string))
		ct[0] ^= 1
		e["ciphertext"] = base64.StdEncoding.EncodeToString(ct)
		b, _ = json.Marshal(d)
		os.WriteFile(path, b, 0o600)
	}
	wrongPass := func(t *testing.T, _ string) { t.Setenv(vaultPassphraseEnv, "not the passphrase") }
	noPass := func(t *testing.T, _ string) { t.Setenv(vaultPassphraseEnv, ""); os.Unsetenv(vaultPassphraseEnv) }
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"wrong passphrase add", wrongPass, "new", []string{"add", "NEW"}, exitFailure, "wrong vault passphrase (given by $AGENTBOX_VAULT_PASSPHRASE)"},
		{"wrong passphrase rotate", wrongPass, "new", []string{"add", "KEEP"}, exitFailure, "wrong vault passphrase"},
		{"wrong passphrase list", wrongPass, "", []string{"list"}, exitFailure, "wrong vault passphrase"},
		{"wrong passphrase test", wrongPass, "", []string{"test", "KEEP"}, exitFailure, "wrong vault passphrase"},
		{"wrong passphrase delete", wrongPass, "", []string{"delete", "KEEP"}, exitFailure, "wrong vault passphrase"},
		{"no passphrase", noPass, "new", []string{"add", "NEW"}, exitFailure, "no vault passphrase: set $AGENTBOX_VAULT_PASSPHRASE"},
		{"unknown name test", nil, "", []string{"test", "MISSING"}, exitFailure, "no such credential: MISSING"},
		{"unknown name delete", nil, "", []string{"delete", "MISSING"}, exitFailure, "no such credential: MISSING"},
		{"bad name add", nil, "v", []string{"add", secretish}, exitFailure, "invalid credential name"},
		{"bad name test", nil, "", []string{"test", "lower"}, exitFailure, "invalid credential name"},
		{"bad name delete", nil, "", []string{"delete", "1X"}, exitFailure, "invalid credential name"},
		{"empty value", nil, "", []string{"add", "NEW"}, exitFailure, "empty value on stdin"},
		{"only a newline", nil, "\n", []string{"add", "NEW"}, exitFailure, "empty value on stdin"},
		{"value too large", nil, strings.Repeat("x", vault.MaxValueSize+1), []string{"add", "NEW"}, exitFailure, "larger than"},
		{"value on the command line", nil, "", []string{"add", "NEW", secretish}, exitInternal, "never from the command line"},
		{"no name", nil, "", []string{"test"}, exitInternal, "exactly one credential NAME"},
		{"list with an argument", nil, "", []string{"list", "X"}, exitInternal, "unknown command"},
		{"set for add", nil, "", []string{"set", "X"}, exitInternal, `unknown command "set" for "agentbox vault" (did you mean add?)`},
		{"rm for delete", nil, "", []string{"rm", "X"}, exitInternal, `(did you mean delete?)`},
		{"unknown subcommand", nil, "", []string{"frob"}, exitInternal, `unknown command "frob" for "agentbox vault"`},
		{"damaged file list", damageFile, "", []string{"list"}, exitFailure, "vault is damaged"},
		{"damaged file test", damageFile, "", []string{"test", "KEEP"}, exitFailure, "vault is damaged"},
		{"damaged file add", damageFile, "v", []string{"add", "NEW"}, exitFailure, "vault is damaged"},
		{"damaged entry test", damageEntry, "", []string{"test", "KEEP"}, exitFailure, "credential KEEP: vault is damaged"},
		{"damaged entry list", damageEntry, "", []string{"list"}, exitFailure, "credential KEEP fails to authenticate"},
		{"damaged entry list --json", damageEntry, "", []string{"list", "--json"}, exitFailure, "credential KEEP fails to authenticate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := vaultTestEnv(t)
			mustVaultCLI(t, "keep-VALUE", "vault", "add", "KEEP")
			if tc.setup != nil {
				tc.setup(t, path)
			}
			before, _ := os.ReadFile(path)
			code, out, errOut := vaultCLI(t, tc.stdin, append([]string{"vault"}, tc.args...)...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.msg) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, out, errOut, tc.msg)
			}
			if !strings.HasPrefix(errOut, "agentbox: ") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut)
			}
			for _, leak := range []string{secretish, "keep-VALUE", vaultTestPass} {
				if strings.Contains(errOut, leak) {
					t.Errorf("stderr repeats %q: %q", leak, errOut)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("vault file changed")
			}
		})
	}
}

func TestVaultCLINoVault(t *testing.T) {
	path := vaultTestEnv(t)
	for _, args := range [][]string{{"list"}, {"test", "X"}, {"delete", "X"}} {
		code, _, errOut := vaultCLI(t, "", append([]string{"vault"}, args...)...)
		if code != exitFailure || !strings.Contains(errOut, "no vault at "+path+"; add a credential first") {
			t.Errorf("%v without a vault: exit %d, %q", args, code, errOut)
		}
	}
	// A failed first add creates nothing.
	os.Unsetenv(vaultPassphraseEnv)
	if code, _, _ := vaultCLI(t, "value", "vault", "add", "X"); code != exitFailure || paths.Exists(path) {
		t.Errorf("add without a passphrase: exit %d, vault exists %v", code, paths.Exists(path))
	}
	t.Setenv(vaultPassphraseEnv, vaultTestPass)
	if code, _, _ := vaultCLI(t, "", "vault", "add", "X"); code != exitFailure || paths.Exists(path) {
		t.Errorf("add with an empty value: exit %d, vault exists %v", code, paths.Exists(path))
	}
}

func TestVaultCLIFlags(t *testing.T) {
	vaultTestEnv(t)
	dir := t.TempDir()
	custom := filepath.Join(dir, "vaults", "team.json")
	passFile := filepath.Join(dir, "pass")
	os.WriteFile(passFile, []byte("from the file\nsecond line ignored\n"), 0o600)
	// --passphrase-file wins over the environment.
	mustVaultCLI(t, "v", "vault", "--vault", custom, "--passphrase-file", passFile, "add", "K")
	if _, err := vault.Open(custom, []byte("from the file")); err != nil {
		t.Fatalf("vault made with --passphrase-file: %v", err)
	}
	if code, _, errOut := vaultCLI(t, "", "vault", "--vault", custom, "test", "K"); code != exitFailure || !strings.Contains(errOut, "wrong vault passphrase") {
		t.Errorf("env passphrase on a file-passphrase vault: exit %d, %q", code, errOut)
	}
	if out := mustVaultCLI(t, "", "vault", "test", "K", "--vault", custom, "--passphrase-file", passFile); out != "OK K (1 bytes)\n" {
		t.Errorf("test: %q", out)
	}
	fi, err := os.Stat(custom)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("custom vault mode: %v %v", fi.Mode(), err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for file, msg := range map[string]string{empty: "is empty", filepath.Join(dir, "missing"): "no such file"} {
		code, _, errOut := vaultCLI(t, "", "vault", "--vault", custom, "--passphrase-file", file, "list")
		if code != exitFailure || !strings.Contains(errOut, msg) {
			t.Errorf("--passphrase-file %s: exit %d, %q", file, code, errOut)
		}
	}
}

// fakeTerminal answers prompts from a script and records them.
type fakeTerminal struct {
	answers []string
	prompts *[]string
}

func (f *fakeTerminal) ReadSecret(_ context.Context, prompt string) ([]byte, error) {
	*f.prompts = append(*f.prompts, prompt)
	if len(f.answers) == 0 {
		return nil, io.EOF
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return []byte(a), nil
}

func (f *fakeTerminal) Close() error { return nil }

func TestVaultCLIPrompts(t *testing.T) {
	path := vaultTestEnv(t)
	os.Unsetenv(vaultPassphraseEnv)
	var prompts []string
	useTerminal := func(answers ...string) {
		prompts = nil
		ft := &fakeTerminal{answers: answers, prompts: &prompts}
		vaultOpenTerminal = func() (vaultTerminal, error) { return ft, nil }
		vaultIsTerminal = func(io.Reader) bool { return true }
	}

	useTerminal("pass one", "pass two", "value")
	if code, _, errOut := vaultCLI(t, "", "vault", "add", "K"); code != exitFailure || !strings.Contains(errOut, "passphrases differ") || paths.Exists(path) {
		t.Errorf("mismatched new passphrase: exit %d, %q, vault exists %v", code, errOut, paths.Exists(path))
	}

	useTerminal("typed pass", "typed pass", "typed-value")
	if out := mustVaultCLI(t, "", "vault", "add", "K"); out != "added K\n" {
		t.Errorf("add with prompts: %q", out)
	}
	if want := []string{"New vault passphrase: ", "Repeat the passphrase: ", "Value of K (input hidden): "}; strings.Join(prompts, "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q, want %q", prompts, want)
	}

	// An existing vault asks once, and checks the passphrase before the value.
	useTerminal("wrong pass", "never read")
	before, _ := os.ReadFile(path)
	if code, _, errOut := vaultCLI(t, "", "vault", "add", "K"); code != exitFailure || !strings.Contains(errOut, "wrong vault passphrase (given by the prompt)") || len(prompts) != 1 {
		t.Errorf("wrong prompted passphrase: exit %d, %q, prompts %q", code, errOut, prompts)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("vault changed after a wrong passphrase")
	}
	useTerminal("typed pass")
	vaultIsTerminal = func(io.Reader) bool { return false } // value from stdin, passphrase from the terminal
	if out := mustVaultCLI(t, "piped-value\n", "vault", "add", "K"); out != "rotated K\n" || len(prompts) != 1 || prompts[0] != "Vault passphrase: " {
		t.Errorf("rotate with a prompted passphrase: %q, prompts %q", out, prompts)
	}
	v, err := vault.Open(path, []byte("typed pass"))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if s, err := v.Get("K"); err != nil || string(s.Bytes()) != "piped-value" {
		t.Errorf("stored %v, %v", s.Len(), err)
	}
}

// A value with a space or tab at an end is stored as given (one newline
// removed), with a one-line warning that HTTP drops them; others add
// silently.
func TestVaultCLIWarnsOfBlankEdges(t *testing.T) {
	path := vaultTestEnv(t)
	for _, tc := range []struct {
		stdin, stored string
		warn          bool
	}{
		{"tok\n", "tok", false},
		{"to k\n", "to k", false},
		{"tok \n", "tok ", true},
		{" tok", " tok", true},
		{"\ttok\r\n", "\ttok", true},
		{"tok\t", "tok\t", true},
	} {
		code, out, errOut := vaultCLI(t, tc.stdin, "vault", "add", "V")
		if code != 0 || !strings.HasPrefix(out, "added V\n") && !strings.HasPrefix(out, "rotated V\n") {
			t.Fatalf("stdin %q: exit %d, stdout %q, stderr %q", tc.stdin, code, out, errOut)
		}
		if got := vaultValue(t, path, "V"); got != tc.stored {
			t.Errorf("stdin %q stored %q, want %q", tc.stdin, got, tc.stored)
		}
		warned := strings.Contains(errOut, "warning: the value of V begins or ends with a space or tab")
		if warned != tc.warn || strings.Contains(errOut, "tok") || strings.Count(errOut, "warning") > 1 {
			t.Errorf("stdin %q: stderr %q, want a warning: %v", tc.stdin, errOut, tc.warn)
		}
	}
}
