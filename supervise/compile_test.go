package supervise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/policy"
	"github.com/agentbox-dev/agentbox/vault"
)

func parse(t *testing.T, base, src string) *policy.Manifest {
	t.Helper()
	m, err := policy.ParseManifestWith(filepath.Join(base, "agent.yaml"), []byte(src), policy.LoadOptions{Home: "/home/u", BaseDir: base})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m
}

func TestCompileEmailSorter(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "manifests", "email-sorter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	m := parse(t, base, string(src))
	resolved, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Compile(m, resolved, stubProvider{})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ColdStart || cfg.Network.Mode != agentbox.NetworkFiltered || cfg.FallbackPolicy != agentbox.FallbackStrict {
		t.Errorf("cold %v mode %v fallback %q", cfg.ColdStart, cfg.Network.Mode, cfg.FallbackPolicy)
	}
	fs := cfg.Filesystem
	checks := []struct {
		name string
		list []string
		want []string
	}{
		{"AllowRead", fs.AllowRead, []string{filepath.Join(base, "data/inbox"), filepath.Join(base, "config")}},
		{"WritableRoots", fs.WritableRoots, []string{filepath.Join(base, "data/sorted")}},
		{"AllowedDomains", cfg.Network.AllowedDomains, []string{"api.anthropic.com", "*.googleapis.com"}},
		{"DeniedDomains", cfg.Network.DeniedDomains, []string{"*"}},
	}
	for _, c := range checks {
		if !slices.Equal(c.list, c.want) {
			t.Errorf("%s = %q, want %q", c.name, c.list, c.want)
		}
	}
	for _, want := range append([]string{"/home/u/.ssh", "/home/u/.aws", filepath.Join(base, "config/secrets")}, agentbox.DefaultDenyRead()...) {
		if !slices.Contains(fs.DenyRead, want) && !coveredBy(fs.DenyRead, want) {
			t.Errorf("DenyRead lacks %s: %q", want, fs.DenyRead)
		}
	}
	if cfg.ResourceLimits.MaxMemoryBytes != 256<<20 {
		t.Errorf("MaxMemoryBytes = %d, want 256 MiB", cfg.ResourceLimits.MaxMemoryBytes)
	}
	if _, err := agentbox.NewManager(cfg); err != nil {
		t.Errorf("the library refuses the compiled Config: %v", err)
	}
}

func coveredBy(list []string, p string) bool {
	for _, d := range list {
		if paths.Within(p, d) {
			return true
		}
	}
	return false
}

func TestCompileDefaults(t *testing.T) {
	m := parse(t, t.TempDir(), "name: plain\n")
	cfg, err := Compile(m, policy.ResolvedPaths{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	def := agentbox.DefaultConfig()
	if len(cfg.Filesystem.AllowRead) != 0 || len(cfg.Filesystem.WritableRoots) != 0 {
		t.Errorf("read %q write %q, want the defaults (read everywhere, write nowhere)", cfg.Filesystem.AllowRead, cfg.Filesystem.WritableRoots)
	}
	want := def.ResourceLimits
	want.CountedMemoryOnly = true // run's monitor counts the tree's memory
	if cfg.ResourceLimits != want {
		t.Errorf("limits %+v, want the defaults %+v", cfg.ResourceLimits, want)
	}
	if len(cfg.Network.AllowedDomains)+len(cfg.Network.DeniedDomains) != 0 || cfg.Network.Mode != agentbox.NetworkFiltered {
		t.Errorf("network %+v, want filtered with empty lists", cfg.Network)
	}
}

func TestCompileRefusesOtherRuntimes(t *testing.T) {
	for _, rt := range []string{"gvisor", "docker", "firecracker"} {
		m := parse(t, t.TempDir(), "name: x\nruntime: "+rt+"\n")
		_, err := Compile(m, policy.ResolvedPaths{}, nil)
		var re *RuntimeError
		if !errors.As(err, &re) || !errors.Is(err, ErrRuntimeUnavailable) || string(re.Runtime) != rt {
			t.Errorf("runtime %s: err %v, want a *RuntimeError", rt, err)
		}
	}
}

func TestPruneNested(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	got := pruneNested([]string{sub, filepath.Join(sub, "deeper"), filepath.Join(sub, "file"), dir + "x", link, filepath.Join(link, "a")})
	want := []string{sub, dir + "x", link, filepath.Join(link, "a")}
	if !slices.Equal(got, want) {
		t.Errorf("pruneNested = %q, want %q", got, want)
	}
}

func TestUnenforced(t *testing.T) {
	m := parse(t, t.TempDir(), "name: x\nlimits: {max_tokens: 5, max_requests: 7, max_duration: 1m}\npermissions: {tools: {allow: [a]}, credentials: [TOKEN]}\n")
	got := Unenforced(m)
	want := []string{"limits.max_tokens (5)", "limits.max_requests (7)", "permissions.tools"}
	if !slices.Equal(got, want) {
		t.Errorf("Unenforced = %q, want %q", got, want)
	}
	if got := Unenforced(parse(t, t.TempDir(), "name: x\nlimits: {max_duration: 1m, max_memory_mb: 5}\n")); got != nil {
		t.Errorf("enforced limits reported as unenforced: %q", got)
	}
	// Alerts nothing raises in the run (red-team round 59).
	m = parse(t, t.TempDir(), "name: x\naudit: {alert_on: [agent_exit, tool_deny, request_budget_90pct, tool_call_budget_80pct, duration_budget_80pct]}\n")
	want = []string{
		"audit.alert_on tool_deny (never raised: permissions.tools is not enforced yet)",
		"audit.alert_on request_budget_90pct (never raised: limits.max_requests is not enforced yet)",
		"audit.alert_on tool_call_budget_80pct (never raised: limits.max_tool_calls is not enforced yet)",
		"audit.alert_on duration_budget_80pct (never raised: the manifest sets no limits.max_duration)",
	}
	if got := Unenforced(m); !slices.Equal(got, want) {
		t.Errorf("Unenforced = %q, want %q", got, want)
	}
}

func TestRecordsLevels(t *testing.T) {
	tests := []struct {
		event string
		want  map[policy.LogLevel]bool
	}{
		{audit.AgentStart, map[policy.LogLevel]bool{policy.LogMinimal: true, policy.LogStandard: true, policy.LogFull: true}},
		{audit.LimitBreached, map[policy.LogLevel]bool{policy.LogMinimal: true, policy.LogStandard: true, policy.LogFull: true}},
		{audit.NetworkDeny, map[policy.LogLevel]bool{policy.LogMinimal: true, policy.LogStandard: true, policy.LogFull: true}},
		{audit.NetworkAllow, map[policy.LogLevel]bool{policy.LogStandard: true, policy.LogFull: true}},
		{audit.FilesystemAllow, map[policy.LogLevel]bool{policy.LogFull: true}},
		{"some_future_event", map[policy.LogLevel]bool{policy.LogFull: true}},
	}
	for _, tt := range tests {
		for _, level := range policy.LogLevels {
			if got := Records(level, tt.event); got != tt.want[level] {
				t.Errorf("Records(%s, %s) = %v, want %v", level, tt.event, got, tt.want[level])
			}
		}
	}
}

func TestMemoryMechanism(t *testing.T) {
	tests := []struct {
		layers []string
		want   string
	}{
		{[]string{"namespaces(user,mount,pid,ipc,uts,cgroup)", "rlimits"}, MemoryMonitor},
		{[]string{"rlimits", "cgroup(v2: memory, pids)"}, MemoryCgroup},
		{nil, MemoryMonitor},
	}
	for _, tt := range tests {
		if got := memoryMechanism(tt.layers); got != tt.want {
			t.Errorf("memoryMechanism(%q) = %q, want %q", tt.layers, got, tt.want)
		}
	}
}

type stubProvider struct{}

func (stubProvider) Credential(context.Context, string) (vault.Secret, error) {
	return vault.NewSecret([]byte("v")), nil
}

func TestCompileCredentials(t *testing.T) {
	m := parse(t, t.TempDir(), "name: x\npermissions:\n  network: {allow: [api.example.com, other.example.com]}\n  credentials:\n    - API_KEY\n    - {name: GH_TOKEN, hosts: [other.example.com], header: Authorization}\n")
	if _, err := Compile(m, policy.ResolvedPaths{}, nil); !errors.Is(err, ErrNoVault) {
		t.Fatalf("without a vault: %v", err)
	}
	cfg, err := Compile(m, policy.ResolvedPaths{}, stubProvider{})
	if err != nil {
		t.Fatal(err)
	}
	want := []agentbox.Credential{{Name: "API_KEY"}, {Name: "GH_TOKEN", Hosts: []string{"other.example.com"}, Header: "Authorization"}}
	if !reflect.DeepEqual(cfg.Credentials, want) || cfg.CredentialProvider == nil {
		t.Fatalf("credentials %+v", cfg.Credentials)
	}
}

// TestDefaultLimitsAgree: validate describes every run's limits with
// policy's numbers; what a manifest without max_memory_mb compiles to must
// be the same.
func TestDefaultLimitsAgree(t *testing.T) {
	cfg, err := Compile(&policy.Manifest{Name: "a", File: "a.yaml"}, policy.ResolvedPaths{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.ResourceLimits
	want := agentbox.ResourceLimits{MaxMemoryBytes: policy.DefaultMaxMemoryMB << 20,
		MaxProcesses: policy.DefaultMaxProcesses, MaxFileDescriptors: policy.DefaultMaxOpenFiles, CountedMemoryOnly: true}
	if got != want {
		t.Errorf("a manifest without limits runs with %+v, described as %+v", got, want)
	}
}
