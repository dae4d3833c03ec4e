//go:build linux

package egress_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/vault"
)

// testSecret is the real value; it must reach allowed.test and nothing
// else, and never appear inside the sandbox.
const testSecret = "s3cr3t-value-9f2c41d7"

type fixedProvider struct{}

func (fixedProvider) Credential(_ context.Context, name string) (vault.Secret, error) {
	if name != "API_TOKEN" {
		return vault.Secret{}, vault.ErrNotFound
	}
	return vault.NewSecret([]byte(testSecret)), nil
}

// TestNetCredentials: a sandboxed curl sends "Authorization: Bearer
// $API_TOKEN". The environment holds a placeholder; the proxy puts the real
// value in for the host the credential is bound to, and only there.
func TestNetCredentials(t *testing.T) {
	inNetns(t)
	// The proxy verifies the upstream it intercepts against agentbox's own
	// roots, which here are the test CA.
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	r := newResolver()
	var decisions []agentbox.NetworkDecision
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	// The other allowed host is sub.allowed.test, on the same upstream
	// address: other tests check that other.test's address is never reached.
	cfg.Network.AllowedDomains = []string{"allowed.test", "sub.allowed.test"}
	cfg.Network.Resolver = r
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) { decisions = append(decisions, d) }
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{"allowed.test"}, Header: "Authorization"}}
	cfg.CredentialProvider = fixedProvider{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	run := func(script string) *agentbox.ExecResult {
		t.Helper()
		// The classifier rightly escalates reading the environment for
		// secrets; the test approves, the sandbox still applies.
		res, err := m.ExecArgs(ctxT(t, 60e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved())
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		if strings.Contains(res.Stdout+res.Stderr, testSecret) {
			t.Fatalf("the real value reached the sandbox:\n%s\n%s", res.Stdout, res.Stderr)
		}
		return res
	}

	// The environment holds a placeholder only.
	res := run(`echo "$API_TOKEN"; env | grep -c ` + testSecret + ` || true`)
	ph := strings.SplitN(res.Stdout, "\n", 2)[0]
	if !strings.HasPrefix(ph, "agentbox-placeholder-API_TOKEN-") || !strings.Contains(res.Stdout, "\n0\n") {
		t.Fatalf("environment: %q", res.Stdout)
	}

	// To the bound host the real value arrives (curl trusts the run CA
	// through the variables agentbox sets; no --cacert).
	res = run(`curl -sS --max-time 20 -H "Authorization: Bearer $API_TOKEN" https://allowed.test/cred-bound`)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "path=/cred-bound") {
		t.Fatalf("bound host: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := upstreamEvents(t, "host=allowed.test value="); !slices.Contains(got, "auth "+allowedAddr+":443 host=allowed.test value=Bearer "+testSecret) {
		t.Fatalf("the bound host did not receive the value: %q", got)
	}
	// An upstream that repeats the request gives the value back masked
	// (run fails the test if the value itself shows up).
	res = run(`curl -sS --max-time 20 --compressed -D - -H "Authorization: Bearer $API_TOKEN" https://allowed.test/echo-auth`)
	masked := "Bearer " + strings.Repeat("*", len(testSecret))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "X-Echo: "+masked) || !strings.Contains(res.Stdout, "you sent "+masked) {
		t.Fatalf("echo: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// Asked for in parts, an echo still comes whole and masked (a part
	// could hold a piece of the value no mask recognises), and a header
	// named after the value is masked although its reader recased it.
	res = run(`curl -sS --max-time 20 -D - -H "Authorization: Bearer $API_TOKEN" -H "Range: bytes=9-20,21-40" https://allowed.test/echo-range`)
	lower := strings.ToLower(res.Stdout)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "you sent "+masked) ||
		!strings.Contains(res.Stdout, "X-E-"+strings.Repeat("*", len(testSecret))) ||
		strings.Contains(lower, strings.ToLower(testSecret)) || strings.Contains(lower, testSecret[4:14]) {
		t.Fatalf("ranges of an echo: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	used := false
	for _, d := range decisions {
		used = used || d.Credential == "API_TOKEN" && d.Host == "allowed.test" && d.Allowed
		if strings.Contains(d.Reason+d.Rule, testSecret) {
			t.Fatalf("a decision holds the value: %+v", d)
		}
	}
	if !used {
		t.Fatalf("no credential-use decision: %+v", decisions)
	}
	// The echo is reported once the response has been relayed, after the
	// command may have exited: the result waits for it.
	if !slices.ContainsFunc(decisions, func(d agentbox.NetworkDecision) bool {
		return d.Rule == egress.RuleCredentialLeak && d.Credential == "API_TOKEN" && !d.Allowed
	}) {
		t.Fatalf("the echo was not reported before the command's result: %+v", decisions)
	}

	// A placeholder in a header its value may not go into is sent as it
	// is, and the result says which header to name.
	res = run(`curl -sS --max-time 20 -o /dev/null -H "X-Custom: $API_TOKEN" https://allowed.test/cred-wrong-header`)
	withheld := false
	for _, v := range res.Violations {
		withheld = withheld || v.Kind == "credential" && v.Rule == "credential-header" && strings.Contains(v.Detail, "X-Custom")
	}
	if res.ExitCode != 0 || !withheld {
		t.Fatalf("a placeholder in X-Custom: exit %d, violations %+v", res.ExitCode, res.Violations)
	}

	// Another allowed host never gets the value. It shares the bound
	// host's address, which the value went to, so its tunnel is
	// intercepted and its answers masked too (red-team round 62): the
	// placeholder there is refused as on any intercepted host it is not
	// bound to, and a request without it goes through (curl trusts the
	// proxy's CA, as the sandbox's clients do).
	res = run(`curl -sS --max-time 20 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $API_TOKEN" https://sub.allowed.test/cred-other`)
	if res.ExitCode != 0 || res.Stdout != "403" {
		t.Fatalf("the other host with the placeholder: exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(`curl -sS --max-time 20 -o /dev/null -w '%{http_code}' https://sub.allowed.test/cred-other-plain`)
	if res.ExitCode != 0 || res.Stdout != "200" || len(upstreamEvents(t, "host=sub.allowed.test path=/cred-other-plain")) == 0 {
		t.Fatalf("control: the other host without the placeholder: exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, e := range upstreamEvents(t, "host=sub.allowed.test") {
		if strings.Contains(e, testSecret) || strings.Contains(e, "/cred-other ") {
			t.Fatalf("sub.allowed.test received %q", e)
		}
	}

	// Plain HTTP never carries a credential: the placeholder is refused.
	res = run(`curl -sS --max-time 20 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $API_TOKEN" http://allowed.test/cred-plain`)
	if res.Stdout != "403" {
		t.Fatalf("plain HTTP with the placeholder: %q %q", res.Stdout, res.Stderr)
	}
	leak := false
	for _, v := range res.Violations {
		leak = leak || v.Kind == "credential"
	}
	if !leak {
		t.Fatalf("no credential violation: %+v", res.Violations)
	}
	if got := upstreamEvents(t, "path=/cred-plain"); len(got) != 0 {
		t.Fatalf("the plain request reached the upstream: %q", got)
	}
}
