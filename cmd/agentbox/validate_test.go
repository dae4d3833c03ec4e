package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeManifest(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateShippedManifests(t *testing.T) {
	for _, name := range []string{"email-sorter", "timeout-test"} {
		path := filepath.Join("..", "..", "manifests", name+".yaml")
		code, out, errOut := runCLI(t, "validate", path)
		for _, l := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
			if l != "" && !strings.Contains(l, ": warning: ") {
				t.Errorf("validate %s: stderr %q", name, errOut)
			}
		}
		if code != 0 {
			t.Errorf("validate %s: exit %d, stderr %q", name, code, errOut)
		}
		if !strings.HasPrefix(out, "✅ valid: "+path+"\n") || !strings.Contains(out, "Agent        "+name+" 1.0.0\n") {
			t.Errorf("validate %s output:\n%s", name, out)
		}
	}
	_, out, _ := runCLI(t, "validate", filepath.Join("..", "..", "manifests", "email-sorter.yaml"))
	for _, want := range []string{
		"  allow      api.anthropic.com, *.googleapis.com\n",
		"  deny       everything not allowed\n",
		"             ANTHROPIC_API_KEY → api.anthropic.com (by its name), Authorization or a key or token header\n",
		"Limits       tokens 50000 · duration 30m · memory 256 MiB\n",
		"Audit        level full · alerts on filesystem_deny, network_deny, token_budget_80pct\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("email-sorter summary lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateInvalid(t *testing.T) {
	path := writeManifest(t, "name: Bad\npermissions:\n  filesystem:\n    wirte: [x]\nlimits: {max_duration: 0s}\n")
	code, out, errOut := runCLI(t, "validate", path)
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
	want := path + `:1:7: name "Bad" is not valid: use lowercase letters, digits and hyphens, starting with a letter or digit (e.g. "bad")` + "\n" +
		path + `:4:5: unknown key "wirte" in permissions.filesystem (did you mean "write"?)` + "\n" +
		path + `:5:24: limits.max_duration must be greater than 0, not 0s; remove the key for no limit` + "\n" +
		"❌ invalid: 3 errors\n"
	if errOut != want {
		t.Errorf("stderr =\n%s\nwant\n%s", errOut, want)
	}
}

func TestValidateWarnings(t *testing.T) {
	data := t.TempDir()
	if err := os.Mkdir(filepath.Join(data, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := writeManifest(t, "name: w\npermissions:\n  filesystem: {write: ["+data+"/x], deny: ["+data+"]}\n")
	code, out, errOut := runCLI(t, "validate", path)
	if code != 0 || !strings.HasPrefix(out, "✅ valid") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	want := path + ":3:24: warning: permissions.filesystem.write: " + data + "/x is under denied " + data + " (line 3); deny wins, so it is not writable\n"
	if errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}

func TestValidateJSON(t *testing.T) {
	type result struct {
		Valid  bool `json:"valid"`
		Errors []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Col     int    `json:"col"`
			Message string `json:"message"`
		} `json:"errors"`
		Warnings []json.RawMessage `json:"warnings"`
		Manifest *struct {
			Name   string `json:"name"`
			Limits struct {
				MaxDuration string `json:"max_duration"`
			} `json:"limits"`
		} `json:"manifest"`
	}
	decode := func(t *testing.T, out string) result {
		t.Helper()
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, out)
		}
		return r
	}

	code, out, errOut := runCLI(t, "validate", "--json", filepath.Join("..", "..", "manifests", "timeout-test.yaml"))
	r := decode(t, out)
	if code != 0 || errOut != "" || !r.Valid || len(r.Errors) != 0 || r.Errors == nil || r.Warnings == nil ||
		r.Manifest == nil || r.Manifest.Name != "timeout-test" || r.Manifest.Limits.MaxDuration != "5s" {
		t.Errorf("valid manifest: exit %d, stderr %q, result %+v", code, errOut, r)
	}

	path := writeManifest(t, "name: a\nruntime: qemu\nzzz: 1\n")
	code, out, errOut = runCLI(t, "validate", path, "--json")
	r = decode(t, out)
	if code != exitFailure || errOut != "" || r.Valid || r.Manifest != nil || len(r.Errors) != 2 {
		t.Fatalf("invalid manifest: exit %d, stderr %q, result %+v", code, errOut, r)
	}
	if e := r.Errors[0]; e.File != path || e.Line != 2 || e.Col != 10 || !strings.HasPrefix(e.Message, `runtime "qemu" is not one of`) {
		t.Errorf("first error = %+v", e)
	}
	if e := r.Errors[1]; e.Line != 3 || e.Col != 1 || !strings.HasPrefix(e.Message, `unknown key "zzz"`) {
		t.Errorf("second error = %+v", e)
	}

	code, out, _ = runCLI(t, "validate", "--json", filepath.Join(t.TempDir(), "missing.yaml"))
	r = decode(t, out)
	if code != exitFailure || r.Valid || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "no such file") {
		t.Errorf("missing file: exit %d, result %+v", code, r)
	}
}

func TestValidateUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no file", []string{"validate"}, exitInternal, "validate takes exactly one manifest file, got 0 arguments"},
		{"two files", []string{"validate", "a.yaml", "b.yaml"}, exitInternal, "got 2 arguments"},
		{"bad flag", []string{"validate", "--jsn", "a.yaml"}, exitInternal, "unknown flag: --jsn"},
		{"missing file", []string{"validate", "/nonexistent/agent.yaml"}, exitFailure, "no such file or directory"},
		{"directory", []string{"validate", os.TempDir()}, exitFailure, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || out != "" || !strings.HasPrefix(errOut, "agentbox: ") || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tt.code, out, errOut, tt.msg)
			}
		})
	}
}

// TestValidateUnenforced: what run warns is not enforced yet, validate
// warns of too, at the key.
func TestValidateUnenforced(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // FILE:LINE:COL: warning: … after the path
	}{
		{"enforced limits", "name: a\nlimits: {max_duration: 5m, max_memory_mb: 64}\n", nil},
		{"token and request budgets", "name: a\nlimits:\n  max_tokens: 5000\n  max_duration: 5m\n  max_requests: 10\n", []string{
			":3:3: warning: limits.max_tokens (5000) is not enforced yet: run carries it into the audit log, but nothing holds the agent to it",
			":5:3: warning: limits.max_requests (10) is not enforced yet",
		}},
		{"tools", "name: a\npermissions:\n  tools: {deny: [x]}\n", []string{":3:3: warning: permissions.tools is not enforced yet"}},
		{"alerts nothing raises", "name: a\naudit:\n  alert_on: [network_deny, duration_budget_80pct, token_budget_50pct]\n", []string{
			":3:3: warning: audit.alert_on duration_budget_80pct (never raised: the manifest sets no limits.max_duration)",
			":3:3: warning: audit.alert_on token_budget_50pct (never raised: limits.max_tokens is not enforced yet)",
		}},
		{"a duration alert with its limit", "name: a\nlimits: {max_duration: 5m}\naudit: {alert_on: [duration_budget_80pct]}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeManifest(t, tc.src)
			code, _, errOut := runCLI(t, "validate", path)
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if errOut == "" {
				lines = nil
			}
			if code != 0 || len(lines) != len(tc.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant %d warnings", code, errOut, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], path+w) {
					t.Errorf("warning %d = %s\nwant %s%s", i, lines[i], path, w)
				}
			}
			_, out, _ := runCLI(t, "validate", "--json", path)
			var r struct {
				Warnings []validateProblem `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Warnings) != len(tc.want) {
				t.Errorf("--json warnings %+v (%v), want %d", r.Warnings, err, len(tc.want))
			}
		})
	}
}
