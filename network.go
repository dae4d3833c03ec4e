package agentbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/internal/staterecord"
	"github.com/agentbox-dev/agentbox/sandbox"
	"github.com/agentbox-dev/agentbox/sandbox/proxyaddr"
)

// injectedRecord names the record, in the state directory, of the
// credentials whose values went out (see injectionMarks).
const injectedRecord = "injected"

// injectionMarks is the egress.InjectionRecord every agentbox process of
// the user shares: an upstream that stores a request's headers shows them
// to a command of another process (two `agentbox exec` calls) as well as
// to the next command of the same Manager. Its keys are credentials'
// names, never their values.
type injectionMarks struct{ m *staterecord.Marks }

func (r injectionMarks) Record(key string) error  { return r.m.Add(key) }
func (r injectionMarks) Recorded(key string) bool { return r.m.Has(key) }

// egressRun is the egress proxy of one sandboxed command: it serves the
// listener the sandbox hands out, and keeps the command's refusals for
// ExecResult.Violations.
type egressRun struct {
	proxy  *egress.Proxy
	cancel context.CancelFunc
	ctx    context.Context

	env []string // placeholders and CA trust for the command

	mu         sync.Mutex
	violations []Violation
	forward    func(NetworkDecision)
	closed     bool          // close was called: the proxy must not start
	served     chan struct{} // closed when the proxy has stopped; nil if it never started
}

// Record implements egress.Sink. Refusals become violations, and so does
// a credential withheld from a request that named it where its value may
// not go (the request went out with the placeholder): the command's
// authentication then fails, and the result says why.
func (r *egressRun) Record(d egress.Decision) {
	var v *Violation
	switch {
	case d.Rule == egress.RuleCredentialHeader:
		v = &Violation{Kind: "credential", Detail: d.Target() + ": " + d.Reason, Rule: d.Rule}
	case !d.Allowed && d.Rule == egress.RuleCredentialLeak:
		v = &Violation{Kind: "credential", Detail: d.Target(), Rule: d.Rule}
	case !d.Allowed:
		v = &Violation{Kind: "network", Detail: d.Target(), Rule: d.Rule}
	}
	if v != nil {
		r.mu.Lock()
		if len(r.violations) < maxViolations {
			r.violations = append(r.violations, *v)
		}
		r.mu.Unlock()
	}
	if r.forward != nil {
		r.forward(d)
	}
}

// maxViolations bounds what a noisy command can make a result hold.
const maxViolations = 256

func (r *egressRun) takeViolations() []Violation {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Violation(nil), r.violations...)
}

// close stops the proxy and waits until its connections are closed and
// their handlers have returned, so that every decision about the command's
// connections has been recorded (and passed to OnDecision) when its result
// is made. The wait is bounded: a result is never held up for long.
func (r *egressRun) close() {
	if r == nil {
		return
	}
	r.cancel()
	r.mu.Lock()
	r.closed = true
	served := r.served
	r.mu.Unlock()
	if served == nil {
		return
	}
	select {
	case <-served:
	case <-time.After(proxyDrainTimeout):
	}
}

// proxyDrainTimeout bounds how long close waits for the proxy's handlers.
const proxyDrainTimeout = 2 * time.Second

// newEgressRun builds the proxy for one command under cfg and wires it into
// spec. guard and injections are shared by every command of the Manager.
func newEgressRun(cfg Config, guard *egress.Guard, injections *egress.Injections, spec *sandbox.Spec) (*egressRun, error) {
	r := &egressRun{forward: cfg.Network.OnDecision}
	creds, credEnv, err := proxyCredentials(cfg)
	if err != nil {
		return nil, err
	}
	p, err := egress.New(egress.Config{
		Credentials: creds,
		Injections:  injections,
		Policy: egress.Policy{
			Allowed:   cfg.Network.AllowedDomains,
			Denied:    cfg.Network.DeniedDomains,
			OnRequest: cfg.Network.OnRequest,
		},
		Resolver: cfg.Network.Resolver,
		Guard:    guard,
		Sink:     r,
		Logger:   cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfigInvalid, err)
	}
	r.proxy = p
	if len(creds) > 0 {
		bundle, err := p.TrustBundle()
		if err != nil {
			return nil, fmt.Errorf("agentbox: credentials: %w", err)
		}
		spec.Files = map[string][]byte{trustBundleName: bundle}
		r.env = append(credEnv, trustEnv()...)
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	spec.ProxyPort = proxyaddr.Port
	spec.Proxy = func(f *os.File) {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			f.Close()
			return
		}
		served := make(chan struct{})
		r.served = served
		r.mu.Unlock()
		defer close(served)
		l, err := net.FileListener(f)
		f.Close()
		if err != nil {
			cfg.logger().Error("egress proxy: the sandbox's listener", "err", err)
			return
		}
		defer l.Close()
		_ = p.Serve(r.ctx, l)
	}
	return r, nil
}

// localOnly names the sandbox's own loopback, which clients may reach
// without the proxy: the network namespace is private, so it leads to
// servers the command itself started, never to the host's.
const localOnly = "localhost,127.0.0.1,::1"

// proxyEnv is what a command in the filtered mode needs to find the proxy.
func proxyEnv() []string {
	env := egress.Env(net.JoinHostPort("127.0.0.1", strconv.Itoa(proxyaddr.Port)))
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "NO_PROXY", "no_proxy", "npm_config_noproxy", "GLOBAL_AGENT_NO_PROXY":
			env[i] = k + "=" + localOnly
		case "JAVA_TOOL_OPTIONS":
			env[i] = k + "=" + strings.Replace(v, "-Dhttp.nonProxyHosts=", "-Dhttp.nonProxyHosts=localhost|127.0.0.1", 1)
		}
	}
	return env
}
