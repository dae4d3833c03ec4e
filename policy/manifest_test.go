package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.errors golden files")

func loadTestdata(t *testing.T, name string) *Manifest {
	t.Helper()
	m, err := LoadManifestWith(filepath.Join("testdata", name), LoadOptions{Home: "/home/u"})
	if err != nil {
		t.Fatalf("LoadManifest(%s): %v", name, err)
	}
	return m
}

func TestLoadFullManifest(t *testing.T) {
	m := loadTestdata(t, "full.yaml")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	paths := func(rules []PathRule) []string {
		var out []string
		for _, r := range rules {
			out = append(out, r.Path)
		}
		return out
	}
	hosts := func(list []HostPattern) []string {
		var out []string
		for _, h := range list {
			out = append(out, h.String())
		}
		return out
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"File", m.File, filepath.Join("testdata", "full.yaml")},
		{"Dir", m.Dir, dir},
		{"Name", m.Name, "full-example"},
		{"Version keeps the literal text of a bare number", m.Version, "2.10"},
		{"Description", m.Description, "Exercises every key of the manifest schema.\n"},
		{"Runtime", m.Runtime, RuntimeGVisor},
		{"Read", paths(m.Permissions.Filesystem.Read), []string{"/home/u", dir + "/data", filepath.Dir(dir) + "/shared/lib", "/etc/ssl/certs"}},
		{"Write", paths(m.Permissions.Filesystem.Write), []string{"/home/u/out", dir + "/data/out", dir + "/secret/sub"}},
		{"Deny", paths(m.Permissions.Filesystem.Deny), []string{"/home/u/.ssh", dir + "/secret"}},
		{"Raw kept", m.Permissions.Filesystem.Deny[0].Raw, "~/.ssh"},
		{"Pos kept", m.Permissions.Filesystem.Deny[0].Pos, Position{Line: 11, Col: 12}},
		{"Allow normalised", hosts(m.Permissions.Network.Allow), []string{"api.example.com", "*.googleapis.com", "api.github.com:443", "203.0.113.7", "[2001:db8::1]:8443", "10.1.2.3"}},
		{"Deny without *", hosts(m.Permissions.Network.Deny), []string{"evil.googleapis.com"}},
		{"DenyAll", m.Permissions.Network.DenyAll, true},
		{"GitWrites", m.Permissions.Filesystem.GitWrites, true},
		{"Scratch", paths(m.Permissions.Filesystem.Scratch), []string{"/home/u/.local/share/virtualenvs"}},
		{"UnixSockets", m.Permissions.Network.UnixSockets, true},
		{"Tools allow", m.Permissions.Tools.Allow, []string{"read_file", "list_*", "mcp__github__*"}},
		{"Tools deny", m.Permissions.Tools.Deny, []string{"execute_shell", "*_delete"}},
		{"Credentials", len(m.Permissions.Credentials), 3},
		{"Credential short form", m.Permissions.Credentials[0].Name, "ANTHROPIC_API_KEY"},
		{"Credential long form", []any{m.Permissions.Credentials[1].Name, hosts(m.Permissions.Credentials[1].Hosts), m.Permissions.Credentials[1].Header},
			[]any{"GITHUB_TOKEN", []string{"api.github.com:443"}, "Authorization"}},
		{"Credential flow long form", hosts(m.Permissions.Credentials[2].Hosts), []string{"*.storage.googleapis.com"}},
		{"Limits", m.Limits, Limits{MaxTokens: 1_000_000, MaxDuration: 90 * time.Minute, MaxMemoryMB: 512, MaxRequests: 16, MaxToolCalls: 200}},
		{"MaxMemoryBytes", m.Limits.MaxMemoryBytes(), int64(512 << 20)},
		{"LogLevel", m.Audit.LogLevel, LogMinimal},
		{"AlertOn", m.Audit.AlertOn, []string{"filesystem_deny", "network_deny", "token_budget_80pct", "limit_breached"}},
		{"LogPath", m.Audit.LogPath, dir + "/logs/audit.log"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m2, err := ParseManifestWith(m.File, data, LoadOptions{Home: "/home/u"}); err != nil || m2.Digest != m.Digest || !strings.HasPrefix(m.Digest, "sha256:") || len(m.Digest) != 7+64 {
		t.Errorf("digest %q not stable or malformed (reparse: %v)", m.Digest, err)
	}
	// The warnings: deny shadows a write; a private address is allowed;
	// deny shadows an allowed host.
	var warns []string
	for _, w := range m.Warnings {
		warns = append(warns, w.Error())
	}
	wantWarns := []string{
		"testdata/full.yaml:10:32: permissions.filesystem.write: " + dir + "/secret/sub is under denied " + dir + "/secret (line 11); deny wins, so it is not writable",
		"testdata/full.yaml:15:108: permissions.network.allow[5]: 10.1.2.3 is a private, loopback, link-local or metadata address; the egress proxy never connects to it, whatever the allow list says",
		"testdata/full.yaml:22:7: permissions.credentials: ANTHROPIC_API_KEY names no hosts, so every allowed host may receive it (api.example.com, *.googleapis.com, api.github.com:443, 203.0.113.7, [2001:db8::1]:8443, 10.1.2.3); bind it with {name: ANTHROPIC_API_KEY, hosts: [...]}",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(wantWarns, "\n"))
	}
}

func TestManifestDefaults(t *testing.T) {
	m := loadTestdata(t, "minimal.yaml")
	if m.Runtime != RuntimeNative || m.Audit.LogLevel != LogStandard || m.Audit.LogPath != "" ||
		m.Limits != (Limits{}) || m.Permissions.Network.DenyAll || len(m.Warnings) != 0 {
		t.Errorf("defaults wrong: %+v", m)
	}
}

func TestManifestWarnings(t *testing.T) {
	src := `name: w
permissions:
  filesystem:
    read: [/data, /data]
    deny: [/data]
  network:
    allow: [api.x.com, "*.y.com", "api.z.com:8443"]
    deny: ["*.x.com", "a.y.com", api.z.com]
  credentials: [TOKEN]
`
	m, err := ParseManifestWith("w.yaml", []byte(src), LoadOptions{Home: "/h", BaseDir: "/b"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.Error())
	}
	want := []string{
		"w.yaml:4:19: permissions.filesystem.read: /data is listed twice (also at line 4)",
		"w.yaml:4:12: permissions.filesystem.read: /data is under denied /data (line 5); deny wins, so it is not readable",
		"w.yaml:7:13: permissions.network.allow: api.x.com is also matched by deny *.x.com (line 8); deny wins, so it is not reachable",
		// A deny entry without a port denies every port.
		"w.yaml:7:35: permissions.network.allow: api.z.com:8443 is also matched by deny api.z.com (line 8); deny wins, so it is not reachable",
		"w.yaml:9:17: permissions.credentials: TOKEN names no hosts, so every allowed host may receive it (api.x.com, *.y.com, api.z.com:8443); bind it with {name: TOKEN, hosts: [...]}",
	}
	// Warnings are sorted by position.
	want[0], want[1] = want[1], want[0]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A credential with no allowed host can never be used.
	m, err = ParseManifestWith("c.yaml", []byte("name: c\npermissions: {credentials: [TOKEN]}\n"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0].Msg, "no request can carry TOKEN") {
		t.Errorf("warnings = %v, want one about TOKEN having no host", m.Warnings)
	}
}

// TestInvalidGolden pins the whole output for a manifest with many errors.
func TestInvalidGolden(t *testing.T) {
	_, err := LoadManifestWith(filepath.Join("testdata", "invalid.yaml"), LoadOptions{Home: "/home/u"})
	if err == nil {
		t.Fatal("invalid.yaml accepted")
	}
	got := err.Error() + "\n"
	golden := filepath.Join("testdata", "invalid.errors")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("errors =\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(got, "\n"); n != 12 {
		t.Errorf("got %d errors, want all 12 reported", n)
	}
}

func TestLoadManifestFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadManifest(filepath.Join(dir, "missing.yaml")); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrInvalidManifest) {
		t.Errorf("missing file: err = %v, want ErrNotExist and not ErrInvalidManifest", err)
	}
	if _, err := LoadManifest(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: err = %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, append([]byte("name: a\ndescription: "), bytes.Repeat([]byte("x"), MaxManifestSize)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadManifest(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: err = %v", err)
	}
}

// TestShippedManifests checks that the manifests in manifests/ validate and
// say what the docs claim, and that the timeout demo's agent really ticks.
func TestShippedManifests(t *testing.T) {
	es, err := LoadManifest(filepath.Join("..", "manifests", "email-sorter.yaml"))
	if err != nil {
		t.Fatalf("email-sorter.yaml: %v", err)
	}
	if es.Name != "email-sorter" || es.Runtime != RuntimeNative || !es.Permissions.Network.DenyAll ||
		len(es.Permissions.Network.Allow) != 2 || len(es.Permissions.Credentials) != 2 ||
		es.Limits != (Limits{MaxTokens: 50000, MaxDuration: 30 * time.Minute, MaxMemoryMB: 256, MaxRequests: 500}) ||
		es.Audit.LogLevel != LogFull || len(es.Warnings) != 0 {
		t.Errorf("email-sorter.yaml does not match DESIGN.md's example: %+v", es)
	}
	tt, err := LoadManifest(filepath.Join("..", "manifests", "timeout-test.yaml"))
	if err != nil {
		t.Fatalf("timeout-test.yaml: %v", err)
	}
	if tt.Name != "timeout-test" || tt.Limits.MaxDuration != 5*time.Second || len(tt.Warnings) != 0 {
		t.Errorf("timeout-test.yaml: name %q, max_duration %v, warnings %v", tt.Name, tt.Limits.MaxDuration, tt.Warnings)
	}

	script := filepath.Join("..", "manifests", "timeout-test.sh")
	fi, err := os.Stat(script)
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("timeout-test.sh missing or not executable: %v", err)
	}
	cmd := exec.Command(script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if got := string(buf[:n]); got != "tick 1\n" {
		t.Errorf("timeout-test.sh first output = %q, want %q", got, "tick 1\n")
	}
}

func TestDescribe(t *testing.T) {
	m := loadTestdata(t, "full.yaml")
	var b bytes.Buffer
	if err := m.Describe(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Agent        full-example 2.10\n",
		"Runtime      gvisor\n",
		"  read       /home/u  (~)\n",
		"  deny       /home/u/.ssh  (~/.ssh)\n",
		"  allow      api.example.com, *.googleapis.com, api.github.com:443, 203.0.113.7, [2001:db8::1]:8443, 10.1.2.3\n",
		"  deny       evil.googleapis.com; and everything not allowed\n",
		"  scratch    /home/u/.local/share/virtualenvs  (~/.local/share/virtualenvs)\n             and the home's tool caches: writable, every change discarded when the agent ends\n",
		"  .git       writable in the writable roots (commit, checkout); hooks and git's configuration stay read-only\n",
		"  unix       sockets allowed: a host service's socket in a readable directory is reachable",
		"  allow      read_file, list_*, mcp__github__*\n",
		"             ANTHROPIC_API_KEY → every allowed host, Authorization or a key or token header\n",
		"             GITHUB_TOKEN → api.github.com:443, header Authorization\n",
		"Limits       tokens 1000000 · duration 1h30m · memory 512 MiB\n",
		"             requests 16 · tool calls 200\n",
		"Audit        level minimal · alerts on filesystem_deny, network_deny, token_budget_80pct, limit_breached\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 40 {
		t.Errorf("summary is %d lines; it must fit one screen", n)
	}

	b.Reset()
	if err := loadTestdata(t, "minimal.yaml").Describe(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  write      nowhere (a private /tmp only)\n",
		"  allow      no host: the agent has no network access\n",
		"Credentials  none\n",
		"  .git       read-only in the writable roots (git_writes: true lets the agent commit)\n",
		"  scratch    the home's tool caches: writable, every change discarded when the agent ends\n",
		"  unix       no sockets but socketpair (unix_sockets: true allows them)\n",
		"Limits       tokens no limit · duration no limit · memory 2048 MiB (the default)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("minimal summary lacks %q:\n%s", want, b.String())
		}
	}
}

func TestManifestJSON(t *testing.T) {
	m := loadTestdata(t, "full.yaml")
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name        string
		Runtime     string
		Permissions struct {
			Filesystem struct {
				Deny      []struct{ Raw, Path string }
				Scratch   []struct{ Raw, Path string }
				GitWrites bool `json:"git_writes"`
			}
			Network struct {
				Allow       []string
				DenyAll     bool `json:"deny_all"`
				UnixSockets bool `json:"unix_sockets"`
			}
			Credentials []struct {
				Name  string
				Hosts []string
			}
		}
		Limits struct {
			MaxDuration   string `json:"max_duration"`
			MaxDurationMS int64  `json:"max_duration_ms"`
			MaxMemoryMB   int64  `json:"max_memory_mb"`
		}
		Audit struct {
			LogLevel string `json:"log_level"`
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "full-example" || got.Runtime != "gvisor" || got.Permissions.Filesystem.Deny[0].Path != "/home/u/.ssh" ||
		!got.Permissions.Network.DenyAll || !got.Permissions.Network.UnixSockets || !got.Permissions.Filesystem.GitWrites ||
		len(got.Permissions.Filesystem.Scratch) != 1 || got.Permissions.Network.Allow[0] != "api.example.com" ||
		got.Permissions.Credentials[1].Hosts[0] != "api.github.com:443" || got.Limits.MaxDuration != "1h30m" ||
		got.Limits.MaxDurationMS != 5400000 || got.Limits.MaxMemoryMB != 512 || got.Audit.LogLevel != "minimal" {
		t.Errorf("JSON lost information: %s", data)
	}
	// Empty lists are [] rather than null.
	data, err = json.Marshal(loadTestdata(t, "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("null")) {
		t.Errorf("minimal manifest JSON has nulls: %s", data)
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Second: "5s", 30 * time.Minute: "30m", time.Hour: "1h", 90 * time.Minute: "1h30m",
		time.Hour + time.Second: "1h0m1s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"read", "write", "deny"}
	for in, want := range map[string]string{
		"wirte": "write", "Write": "write", "rea": "read", "writes": "write", "denied": "deny",
		"xyz": "", "readwrite": "",
	} {
		if got := suggest(in, keys); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
	alerts := []string{"token_budget_50pct", "token_budget_80pct"}
	if got := suggest("token_budget", alerts); got != "" {
		t.Errorf("ambiguous prefix suggested %q", got)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "0", "email-sorter", "a1-b2", strings.Repeat("x", 63)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "A", "a_b", "a.b", "a b", "ä", strings.Repeat("x", 64)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
}

func TestSuggestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Email_Sorter", "email-sorter"},
		{"émail-sörter", "email-sorter"},
		{"Straße", "strasse"},
		{"почта", ""},      // no Latin letters: nothing near
		{"mail-почта", ""}, // dropping half the name is no suggestion
	} {
		if got := suggestName(tc.in); got != tc.want {
			t.Errorf("suggestName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
