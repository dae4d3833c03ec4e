//go:build linux

package egress_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// testNames is what the suite's resolver (and, for the CLI, /etc/hosts)
// answers. Every address is in the suite's own namespaces.
var testNames = map[string][]netip.Addr{
	"allowed.test":     {netip.MustParseAddr(allowedAddr)},
	"sub.allowed.test": {netip.MustParseAddr(allowedAddr)},
	"other.test":       {netip.MustParseAddr(otherAddr)},
	"denied.test":      {netip.MustParseAddr(deniedAddr)},
	"loop.test":        {netip.MustParseAddr("127.0.0.1")},
	"private.test":     {netip.MustParseAddr(privateAddr)},
	"meta.test":        {netip.MustParseAddr(metadataAddr)},
	"hostaddr.test":    {netip.MustParseAddr(hostAddr)},
	"late.test":        {netip.MustParseAddr(lateHostAddr)},
	"anyip.test":       {netip.MustParseAddr(anyIPAddr)},
	"localsrc.test":    {netip.MustParseAddr(localSrcAddr)},
	"anyip6.test":      {netip.MustParseAddr(anyIP6Addr)},
	"zero.test":        {netip.MustParseAddr("0.0.0.0")},
	"mappedhost.test":  {netip.MustParseAddr("::ffff:" + hostAddr)},
	"mapped.test":      {netip.MustParseAddr("::ffff:127.0.0.1")},
	"localhost":        {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
	// Blocked addresses first: the proxy must skip them and dial the good one.
	"mixed.test": {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr(privateAddr), netip.MustParseAddr(allowedAddr)},
}

// rebinding are names whose answer changes with every lookup (a DNS
// rebinding attacker's server, with a zero TTL): the n-th lookup gets the
// n-th answer, round robin. They are not in /etc/hosts.
var rebinding = map[string][][]netip.Addr{
	"rebind-good-first.test": {{netip.MustParseAddr(allowedAddr)}, {netip.MustParseAddr("127.0.0.1")}},
	"rebind-bad-first.test":  {{netip.MustParseAddr("127.0.0.1")}, {netip.MustParseAddr(allowedAddr)}},
}

func sortedNames() []string {
	var ns []string
	for n := range testNames {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// fixedResolver answers from testNames and counts the lookups of each name.
type fixedResolver struct {
	mu      sync.Mutex
	lookups map[string]int
}

func newResolver() *fixedResolver { return &fixedResolver{lookups: map[string]int{}} }

// LookupNetIP implements egress.Resolver.
func (r *fixedResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	r.mu.Lock()
	r.lookups[host]++
	n := r.lookups[host]
	r.mu.Unlock()
	addrs := testNames[host]
	if seq, ok := rebinding[host]; ok {
		addrs = seq[(n-1)%len(seq)]
	}
	var out []netip.Addr
	for _, a := range addrs {
		switch {
		case network == "ip4" && !a.Unmap().Is4(), network == "ip6" && !a.Is6():
		default:
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func (r *fixedResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[host]
}

// decision is one verdict of the egress proxy.
type decision = agentbox.NetworkDecision

// netPolicy is the filtered network's allow and deny lists.
type netPolicy struct {
	allow, deny []string
}

// outcome is one sandboxed command's result with everything the proxy
// reported about it.
type outcome struct {
	res       *agentbox.ExecResult
	decisions []agentbox.NetworkDecision
	resolver  *fixedResolver
}

// newManager returns a Manager with the default policy, the filtered
// network under pol, the suite's resolver, and a collector of decisions.
func newManager(t *testing.T, pol netPolicy) (*agentbox.Manager, *fixedResolver, func() []agentbox.NetworkDecision) {
	t.Helper()
	var mu sync.Mutex
	var decisions []agentbox.NetworkDecision
	r := newResolver()
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = pol.allow
	cfg.Network.DeniedDomains = pol.deny
	cfg.Network.Resolver = r
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) {
		mu.Lock()
		decisions = append(decisions, d)
		mu.Unlock()
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, r, func() []agentbox.NetworkDecision {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(decisions)
	}
}

// runSandboxed runs argv in a new sandbox under pol.
func runSandboxed(t *testing.T, pol netPolicy, argv []string, opts ...agentbox.Option) outcome {
	t.Helper()
	m, r, decisions := newManager(t, pol)
	return execIn(t, m, r, decisions, argv, opts...)
}

func execIn(t *testing.T, m *agentbox.Manager, r *fixedResolver, decisions func() []agentbox.NetworkDecision, argv []string, opts ...agentbox.Option) outcome {
	t.Helper()
	opts = append([]agentbox.Option{agentbox.WithTimeout(40 * time.Second)}, opts...)
	res, err := m.ExecArgs(ctxT(t, 60*time.Second), argv[0], argv[1:], opts...)
	if err != nil {
		t.Fatalf("ExecArgs %q: %v", argv, err)
	}
	if !res.Sandboxed {
		t.Fatalf("%q did not run sandboxed (layers %v)", argv, res.Layers)
	}
	o := outcome{res: res, decisions: decisions(), resolver: r}
	for _, d := range o.decisions {
		t.Logf("decision: %s %s allowed=%v rule=%s addr=%v", d.Proto, d.Target(), d.Allowed, d.Rule, d.Addr)
	}
	return o
}

// dump describes o for failure messages.
func (o outcome) dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\n--- stdout\n%s\n--- stderr\n%s\n--- violations %+v\n--- decisions\n", o.res.ExitCode, o.res.Stdout, o.res.Stderr, o.res.Violations)
	for _, d := range o.decisions {
		fmt.Fprintf(&b, "  %s %s allowed=%v rule=%s addr=%v reason=%q\n", d.Proto, d.Target(), d.Allowed, d.Rule, d.Addr, d.Reason)
	}
	return b.String()
}

// decisionWant is what one decision must say. Empty fields are not checked.
type decisionWant struct {
	proto string
	host  string
	port  int
	rule  string
	addr  string
}

func (w decisionWant) String() string {
	return fmt.Sprintf("%s %s:%d rule=%q addr=%q", w.proto, w.host, w.port, w.rule, w.addr)
}

func (w decisionWant) match(d agentbox.NetworkDecision) bool {
	return (w.proto == "" || d.Proto == w.proto) &&
		d.Host == w.host && d.Port == w.port &&
		(w.rule == "" || d.Rule == w.rule) &&
		(w.addr == "" || d.Addr.String() == w.addr)
}

// wantAllowed checks that the proxy allowed w and refused nothing.
func (o outcome) wantAllowed(t *testing.T, w decisionWant) {
	t.Helper()
	found := false
	for _, d := range o.decisions {
		if !d.Allowed {
			t.Errorf("unexpected refusal %s %s rule=%s\n%s", d.Proto, d.Target(), d.Rule, o.dump())
		}
		if d.Allowed && w.match(d) {
			found = true
		}
	}
	if !found {
		t.Errorf("no decision allowing %v\n%s", w, o.dump())
	}
	if len(o.res.Violations) != 0 {
		t.Errorf("violations %+v for an allowed request", o.res.Violations)
	}
}

// wantRefused checks that the proxy refused w, told OnDecision and put it
// in ExecResult.Violations, and allowed nothing else.
func (o outcome) wantRefused(t *testing.T, w decisionWant) {
	t.Helper()
	found := false
	for _, d := range o.decisions {
		if !d.Allowed && w.match(d) {
			found = true
		}
	}
	if !found {
		t.Errorf("no decision refusing %v\n%s", w, o.dump())
	}
	target := net.JoinHostPort(w.host, strconv.Itoa(w.port))
	if !slices.ContainsFunc(o.res.Violations, func(v agentbox.Violation) bool {
		return v.Kind == "network" && v.Detail == target && (w.rule == "" || v.Rule == w.rule)
	}) {
		t.Errorf("no network violation %s rule %q in %+v", target, w.rule, o.res.Violations)
	}
}

// wantNoneAllowed checks that the proxy allowed no connection at all.
func (o outcome) wantNoneAllowed(t *testing.T) {
	t.Helper()
	for _, d := range o.decisions {
		if d.Allowed {
			t.Errorf("ESCAPE: the proxy allowed %s %s (rule %s)\n%s", d.Proto, d.Target(), d.Rule, o.dump())
		}
	}
}

// wantNotLooked checks that none of names went to the resolver: a name the
// lists refuse must never reach DNS.
func (o outcome) wantNotLooked(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if c := o.resolver.count(n); c != 0 {
			t.Errorf("%s was resolved %d times although the policy refused it", n, c)
		}
	}
}

// curlResult is a sandboxed curl's output, split.
type curlResult struct {
	body    string // the response body, without the marker line
	code    string // %{http_code}
	connect string // %{http_connect}
	exit    int    // %{exitcode}
	stderr  string // response headers (-D /dev/stderr) and curl's messages
}

// curlMarker ends curl's output with the values the tests check.
const curlMarker = "\n@@curl code=%{http_code} connect=%{http_connect} exit=%{exitcode}\n"

// curlArgv returns a sandboxed curl invocation: quiet but showing errors,
// trusting the test CA, response headers (the proxy's CONNECT response
// included) on stderr, and curlMarker on stdout.
func curlArgv(args ...string) []string {
	return append([]string{"/usr/bin/curl", "-sS", "--max-time", "20", "--cacert", caFile(),
		"-D", "/dev/stderr", "-w", curlMarker}, args...)
}

// curl parses o as a curlArgv run.
func (o outcome) curl(t *testing.T) curlResult {
	t.Helper()
	out := o.res.Stdout
	i := strings.LastIndex(out, "\n@@curl ")
	if i < 0 {
		t.Fatalf("curl printed no marker line\n%s", o.dump())
	}
	r := curlResult{body: out[:i], stderr: o.res.Stderr}
	for _, f := range strings.Fields(out[i:]) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "code":
			r.code = v
		case "connect":
			r.connect = v
		case "exit":
			r.exit, _ = strconv.Atoi(v)
		}
	}
	if r.exit != o.res.ExitCode {
		t.Errorf("curl reports exit %d, the sandbox %d", r.exit, o.res.ExitCode)
	}
	return r
}

// denyHeader returns the X-Agentbox-Deny values in curl's header dump.
func (r curlResult) denyHeader() []string {
	var out []string
	for _, line := range strings.Split(r.stderr, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && strings.EqualFold(k, "X-Agentbox-Deny") {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}
