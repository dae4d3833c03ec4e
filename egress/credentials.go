package egress

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentbox-dev/agentbox/internal/credheaders"
	"github.com/agentbox-dev/agentbox/vault"
)

// Credential is a secret the sandbox never sees. The sandbox holds
// Placeholder instead (typically in an environment variable, from
// NewPlaceholder); the proxy replaces it with the real value in the headers
// of HTTPS requests toward Hosts, and only there:
//
//   - Tunnels (CONNECT and SOCKS5) to a host in Hosts are intercepted once
//     the policy, the address guard and the SNI check allowed them: the
//     proxy terminates TLS with a certificate from its own CA (CACertPEM,
//     which the sandbox must trust), opens TLS to the checked upstream
//     address verifying its certificate against UpstreamRoots, and relays
//     HTTP/1.1 requests one by one. Every other tunnel is spliced and never
//     looked into.
//   - In an intercepted request, the placeholder is replaced in request
//     header values (only in Header when set), also inside Basic
//     credentials ("Authorization: Basic base64(user:placeholder)").
//     Elsewhere in a request to a bound host it passes unchanged.
//   - A request that carries the placeholder (request line, headers, Basic
//     credentials, body, trailers' names and values) toward a host the
//     credential is not bound to is refused with 403 and rule
//     RuleCredentialLeak, wherever the proxy can see it: plain-HTTP
//     requests (never injected, whatever the host) and intercepted tunnels.
//     After a protocol switch the client's bytes are scanned too, and the
//     stream is closed at a placeholder (recorded the same way). The check
//     finds the placeholder as written; an agent that encodes it
//     differently only sends a worthless string.
//   - TRACE and TRACK are refused in intercepted tunnels (405), and the Host
//     header and request target must name the tunnel's host, so an
//     injected request cannot be reflected or routed elsewhere by a shared
//     front end.
//
// The value is fetched for each request that needs it and wiped once
// written; it never appears in a Decision, a log record or an error.
type Credential struct {
	// Name identifies the credential in decisions and logs (e.g.
	// "GITHUB_TOKEN").
	Name string
	// Placeholder is what the sandbox holds: at least 16 bytes of
	// [A-Za-z0-9._~-], so it is safe in headers and URLs. No placeholder may
	// contain another.
	Placeholder string
	// Value returns the real value; the proxy wipes the Secret after use. Its
	// bytes must be valid in an HTTP header value (no control characters
	// but tab). Spaces and tabs at its ends are not sent: HTTP drops them
	// from a field value, so the value goes out (and is masked) as the
	// upstream reads it; a value of only blanks is refused. See
	// ProviderValue.
	Value func(ctx context.Context) (vault.Secret, error)
	// Hosts are the hosts the value may go to, as Policy patterns (ports
	// included: "api.example.com" means ports 80 and 443). "*" is refused:
	// it would send the value wherever the sandbox asks. Without Hosts the
	// credential is never injected and its placeholder is blocked
	// everywhere.
	Hosts []string
	// Header, when set, is the only request header the value is injected
	// into (e.g. "X-Honeycomb-Team"). Empty means Authorization and the
	// headers whose names end in a credential's shape (X-Api-Key,
	// Private-Token, X-Client-Secret, …; see credentialHeaderShapes):
	// never one a server may store or repeat, such as Origin or
	// Idempotency-Key. New refuses a Header that frames or routes the
	// request (Host, Content-Length, Transfer-Encoding,
	// Proxy-Authorization, …) or that servers store and repeat
	// (Idempotency-Key, X-Csrf-Token, Next-Page-Token, an object store's
	// user metadata such as X-Amz-Meta-Token, …), with _ read as
	// - (Content_Length too). Wherever the response to a request repeats
	// an injected value, it is masked.
	Header string
}

// ProviderValue returns a Credential.Value that asks p for name each time.
func ProviderValue(p vault.Provider, name string) func(context.Context) (vault.Secret, error) {
	return func(ctx context.Context) (vault.Secret, error) { return p.Credential(ctx, name) }
}

// PlaceholderPrefix starts every placeholder NewPlaceholder makes.
const PlaceholderPrefix = "agentbox-placeholder-"

// Limits on credentials.
const (
	maxCredentialName = 128
	minPlaceholderLen = 16
	maxPlaceholderLen = 256
)

// ErrInvalidCredential is wrapped by every error about a Credential or a
// credential name.
var ErrInvalidCredential = errors.New("invalid credential")

// NewPlaceholder returns a fresh placeholder for the credential name:
// "agentbox-placeholder-NAME-" and 32 random hex digits, unique per call,
// recognisable, and safe in headers and URLs. name must be 1 to 128 bytes
// of [A-Za-z0-9_].
func NewPlaceholder(name string) (string, error) {
	if err := checkCredentialName(name); err != nil {
		return "", err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("egress: placeholder: %w", err)
	}
	return PlaceholderPrefix + name + "-" + hex.EncodeToString(b[:]), nil
}

func checkCredentialName(name string) error {
	if name == "" || len(name) > maxCredentialName {
		return fmt.Errorf("%w: a name must be 1 to %d bytes long", ErrInvalidCredential, maxCredentialName)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c == '_' || isAlnum(c)) {
			return fmt.Errorf("%w: name %q: only letters, digits and _ are allowed", ErrInvalidCredential, name)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// placeholderByte reports the bytes a placeholder may hold: URL
// "unreserved" characters, which are also header token characters.
func placeholderByte(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

// Rules of the decisions about credentials and intercepted requests.
const (
	RuleCredentialUse   = "credential-use"         // a value was injected
	RuleCredentialLeak  = "credential-leak"        // a placeholder went toward a host not bound to it
	RuleCredentialError = "credential-unavailable" // the value could not be fetched or is not a valid header value
	RuleUpstreamTLS     = "upstream-tls"           // an intercepted upstream failed TLS verification
	RuleMethod          = "method-refused"         // TRACE, TRACK or CONNECT inside an intercepted tunnel
	// A placeholder in a header its value may not go into was sent as it is.
	RuleCredentialHeader = "credential-header"
	// A response to a request that carried a value could not be checked for
	// it (compressed against the request's wish) and was refused.
	RuleResponseUnchecked = "response-unchecked"
)

// DefaultCAValidity is how long a proxy's CA is valid by default.
const DefaultCAValidity = 24 * time.Hour

// credential is a validated Credential.
type credential struct {
	name   string
	ph     []byte
	value  func(ctx context.Context) (vault.Secret, error)
	hosts  patternIndex
	bound  string // the host patterns, for reasons
	header string // canonical header name; "" for any
	// injected is set once the value went into a request: from then on
	// every response from a host it is bound to is masked for it, on
	// any connection (one that stores a request's headers may show them
	// on another: red-team round 52), by every Proxy sharing the
	// Injections (see Config.Injections).
	injected *injectedFlag
}

// Injections remembers which credentials went into a request, for the
// Proxies that share it (Config.Injections): a Proxy is made per command,
// and the next command's must mask what the last one's injected, as an
// upstream that stores a request's headers shows them to the next
// command (red-team round 55). Credentials are the same where their
// names are: a credential's hosts and header may change between commands
// (Manager.UpdateConfig; hosts that follow the allow list), and what an
// upstream kept, it keeps (red-team round 58); a same-named credential of
// another configuration is masked for nothing, at no risk. The zero value
// is ready to use.
type Injections struct {
	// Record, when set, carries the memory beyond this process: a value
	// that went out is recorded there before it goes, and a credential
	// counts as injected once Record says so, whoever recorded it. Set it
	// before the Injections is first used.
	Record  InjectionRecord
	flags   sync.Map // string -> *injectedFlag
	tunnels liveTunnels
}

// InjectionRecord is a memory of injected credentials that processes
// share: agentbox keeps one in its state directory, so that a command of
// one agentbox process masks the echo of a value another one's command
// sent (two `agentbox exec` calls).
type InjectionRecord interface {
	// Record notes that the value of the credential key goes out; once
	// it returns, Recorded(key) is true in every process.
	Record(key string) error
	// Recorded reports whether key was recorded; true where that cannot
	// be told (masking a value that did not go out costs nothing).
	Recorded(key string) bool
}

// flag returns the flag of credential c.
func (in *Injections) flag(c *credential) *injectedFlag {
	f, _ := in.flags.LoadOrStore(c.name, &injectedFlag{key: c.name, rec: in.Record, tunnels: &in.tunnels})
	return f.(*injectedFlag)
}

// injectedFlag says whether a credential's value went into a request.
type injectedFlag struct {
	key      string
	rec      InjectionRecord
	set      atomic.Bool
	recorded atomic.Bool
	addrs    sync.Map // netip.Addr: the addresses the value went to
	tunnels  *liveTunnels
}

// load reports whether the value went out: set here, or recorded by
// another process. The record is asked at every call until it says yes,
// so a response read after another process's injection is masked.
func (f *injectedFlag) load() bool {
	if f.set.Load() {
		return true
	}
	if f.rec != nil && f.rec.Recorded(f.key) {
		f.recorded.Store(true)
		f.set.Store(true)
		return true
	}
	return false
}

// store records that the value goes out, in the record first.
func (f *injectedFlag) store() error {
	if f.rec != nil && !f.recorded.Load() {
		if err := f.rec.Record(f.key); err != nil {
			return err
		}
		f.recorded.Store(true)
	}
	f.set.Store(true)
	return nil
}

// storeTo records that the value goes to the address a, in the record
// first (beside store).
func (f *injectedFlag) storeTo(a netip.Addr) error {
	if !a.IsValid() {
		return nil
	}
	a = a.Unmap()
	if _, ok := f.addrs.Load(a); ok {
		return nil
	}
	if f.rec != nil {
		if err := f.rec.Record(addrKey(f.key, a)); err != nil {
			return err
		}
	}
	f.addrs.Store(a, true)
	if f.tunnels != nil {
		f.tunnels.endUnmasked(a, f) // before the value goes (earlytunnels.go)
	}
	return nil
}

// wentTo reports whether the value went to the address a: here, or in a
// process sharing the record.
func (f *injectedFlag) wentTo(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if _, ok := f.addrs.Load(a); ok {
		return true
	}
	if f.rec != nil && f.load() && f.rec.Recorded(addrKey(f.key, a)) {
		f.addrs.Store(a, true)
		return true
	}
	return false
}

// addrKey is the record's key for a credential's value going to a.
func addrKey(key string, a netip.Addr) string { return key + "@" + a.String() }

// wasInjected reports whether c's value went into a request (of any Proxy
// sharing its Injections, or any process sharing their record).
func (c *credential) wasInjected() bool { return c.injected != nil && c.injected.load() }

// markInjected records that c's value goes into a request; an error says
// the record could not be written, and the value must not go.
func (c *credential) markInjected() error {
	if c.injected == nil {
		return nil
	}
	return c.injected.store()
}

// markInjectedTo is markInjected for a value that goes to the address to,
// which is recorded too (see credSet.echoes).
func (c *credential) markInjectedTo(to netip.Addr) error {
	if err := c.markInjected(); err != nil || c.injected == nil {
		return err
	}
	return c.injected.storeTo(to)
}

// wentTo reports whether c's value went to the address a.
func (c *credential) wentTo(a netip.Addr) bool { return c.injected != nil && c.injected.wentTo(a) }

// binds reports whether the credential may go to t.
func (c *credential) binds(t target) bool {
	_, ok := c.hosts.lookup(t, true)
	return ok
}

// credSet is the compiled Credentials of a Proxy with the CA and the trust
// that interception needs.
type credSet struct {
	all      []*credential
	ca       *ca
	roots    *x509.CertPool
	sessions tls.ClientSessionCache
	server   *tls.Config  // the client-facing TLS config of every intercepted tunnel
	tunnels  *liveTunnels // the Injections' (earlytunnels.go)
}

func newCredSet(list []Credential, roots *x509.CertPool, validity time.Duration, in *Injections) (*credSet, error) {
	if in == nil {
		in = new(Injections) // this Proxy's own
	}
	cs := &credSet{roots: roots, sessions: tls.NewLRUClientSessionCache(64), tunnels: &in.tunnels}
	var bound []Pattern
	names := map[string]bool{}
	for i, c := range list {
		cr, pats, err := compileCredential(c)
		if err != nil {
			return nil, fmt.Errorf("credential %d: %w", i+1, err)
		}
		if names[cr.name] {
			return nil, fmt.Errorf("%w: %s is listed twice", ErrInvalidCredential, cr.name)
		}
		names[cr.name] = true
		cr.injected = in.flag(cr)
		for _, o := range cs.all {
			if strings.Contains(string(o.ph), string(cr.ph)) || strings.Contains(string(cr.ph), string(o.ph)) {
				return nil, fmt.Errorf("%w: the placeholders of %s and %s contain one another", ErrInvalidCredential, o.name, cr.name)
			}
		}
		cs.all = append(cs.all, cr)
		bound = append(bound, pats...)
	}
	if cs.roots == nil {
		rs, err := systemRoots()
		if err != nil {
			return nil, err
		}
		cs.roots = rs.pool
	}
	if validity <= 0 {
		validity = DefaultCAValidity
	}
	var err error
	if cs.ca, err = newCA(validity, bound); err != nil {
		return nil, err
	}
	cs.server = &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}, GetCertificate: leafOf}
	return cs, nil
}

func compileCredential(c Credential) (*credential, []Pattern, error) {
	if err := checkCredentialName(c.Name); err != nil {
		return nil, nil, err
	}
	cr := &credential{name: c.Name, value: c.Value}
	if c.Value == nil {
		return nil, nil, fmt.Errorf("%w: %s has no Value", ErrInvalidCredential, c.Name)
	}
	if n := len(c.Placeholder); n < minPlaceholderLen || n > maxPlaceholderLen {
		return nil, nil, fmt.Errorf("%w: %s: a placeholder must be %d to %d bytes long", ErrInvalidCredential, c.Name, minPlaceholderLen, maxPlaceholderLen)
	}
	for i := 0; i < len(c.Placeholder); i++ {
		if !placeholderByte(c.Placeholder[i]) {
			return nil, nil, fmt.Errorf("%w: %s: a placeholder may hold only letters, digits and -._~", ErrInvalidCredential, c.Name)
		}
	}
	cr.ph = []byte(c.Placeholder)
	if c.Header != "" {
		if !validHeaderName(c.Header) {
			return nil, nil, fmt.Errorf("%w: %s: %q is not a header name", ErrInvalidCredential, c.Name, c.Header)
		}
		if credheaders.IsFraming(c.Header) {
			return nil, nil, fmt.Errorf("%w: %s: header %s frames or routes the request, which the proxy owns, and cannot carry a credential; name the header the service reads the credential from (e.g. Authorization)",
				ErrInvalidCredential, c.Name, c.Header)
		}
		if credheaders.IsStored(c.Header) {
			return nil, nil, fmt.Errorf("%w: %s: servers store and send back header %s, so the value would reach the sandbox; name the header the service reads the credential from (e.g. Authorization)",
				ErrInvalidCredential, c.Name, c.Header)
		}
		cr.header = textproto.CanonicalMIMEHeaderKey(c.Header)
	}
	var pats []Pattern
	var shown []string
	for _, h := range c.Hosts {
		p, err := ParsePattern(h)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %w", ErrInvalidCredential, c.Name, err)
		}
		if p.matchesEveryHost() {
			return nil, nil, fmt.Errorf("%w: %s: host %q would send the value to every host; name the hosts", ErrInvalidCredential, c.Name, h)
		}
		cr.hosts.add(p)
		pats = append(pats, p)
		shown = append(shown, p.String())
	}
	cr.bound = strings.Join(shown, ", ")
	if cr.bound == "" {
		cr.bound = "no host"
	}
	return cr, pats, nil
}

// validHeaderName reports whether s is an HTTP field name (a token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// intercepts reports whether tunnels to t are intercepted: some credential
// is bound to t.
func (cs *credSet) intercepts(t target) bool {
	for _, c := range cs.all {
		if c.binds(t) {
			return true
		}
	}
	return false
}

// echoes returns the credentials bound to t's host, on any of its ports:
// a value that went out to one port of a host may come back from another
// (stored by the host, shown on its plain side: red-team round 56); and
// those whose value went to the address at, whatever name reaches it now
// (the bound host's address as an IP literal, another name of it:
// red-team round 62).
func (cs *credSet) echoes(t target, at netip.Addr) []*credential {
	var out []*credential
	for _, c := range cs.all {
		if c.hosts.namesHost(t) || c.wentTo(at) {
			out = append(out, c)
		}
	}
	return out
}

// split returns the credentials bound to t and the others.
func (cs *credSet) split(t target) (bound, others []*credential) {
	for _, c := range cs.all {
		if c.binds(t) {
			bound = append(bound, c)
		} else {
			others = append(others, c)
		}
	}
	return bound, others
}

// CACertPEM returns the PEM certificate of the proxy's CA, which sandboxed
// programs must trust for intercepted tunnels, or nil when the proxy has no
// Credentials. Its private key never leaves the Proxy's memory.
func (p *Proxy) CACertPEM() []byte {
	if p.creds == nil {
		return nil
	}
	return append([]byte(nil), p.creds.ca.certPEM...)
}

// TrustBundle returns the roots agentbox trusts (SystemRootsPEM) followed
// by the proxy's CA (when it has one): the CA file a sandboxed program
// should use (see TrustEnv).
func (p *Proxy) TrustBundle() ([]byte, error) {
	rs, err := systemRoots()
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), rs.pem...)
	return append(out, p.CACertPEM()...), nil
}

// plainLeak refuses a plain-HTTP request that carries a placeholder in its
// request line or headers: values are never injected into plain HTTP, so
// a placeholder there is a leak whatever the host. It reports whether it
// refused.
func (h *connHandler) plainLeak(pr *proxyRequest) bool {
	if h.p.creds == nil {
		return false
	}
	l := findLeak(h.p.creds.all, pr.head, pr.req.Header)
	if l == nil {
		return false
	}
	h.refuseLeak(pr.target, netip.Addr{}, l)
	return true
}

// refuseLeak records and answers a plain-HTTP request that carried a
// placeholder.
func (h *connHandler) refuseLeak(t target, addr netip.Addr, l *leak) {
	d := Decision{Time: time.Now(), Proto: ProtoHTTP, Host: t.host(), Port: t.port, Addr: addr,
		Rule: RuleCredentialLeak, Credential: l.cred.name,
		Reason: fmt.Sprintf("the placeholder of credential %s is in %s of a plain-HTTP request; credentials are injected only over HTTPS, to %s",
			l.cred.name, l.where, l.cred.bound)}
	h.p.record(d)
	h.writeError(http.StatusForbidden, d.Rule, refusalText(d))
}
