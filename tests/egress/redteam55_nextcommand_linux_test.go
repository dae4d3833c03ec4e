//go:build linux

package egress_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt55cStorePort is where the upstream namespace serves, on allowedAddr,
// an HTTPS service that keeps the last Authorization header it got
// (/rt55c-login) and shows it (/rt55c-last): a request inspector, a
// "last request" debug endpoint, an API gateway's trace.
const rt55cStorePort = 8455

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveHeaderStore(os.Getenv(envDir), rt55cStorePort, "/rt55c", "redteam55 store")
	}
}

// serveHeaderStore serves, on allowedAddr:port, an HTTPS service that
// keeps the last Authorization header it got (PREFIX-login) and shows it
// (PREFIX-last): a request inspector, a "last request" debug endpoint, an
// API gateway's trace. name is for its errors.
func serveHeaderStore(dir string, port int, prefix, name string) {
	l := listenAllowed(port, name)
	if l == nil {
		return
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, leafFileName), filepath.Join(dir, keyFileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return
	}
	var (
		mu   sync.Mutex
		last = "none"
	)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			switch r.URL.Path {
			case prefix + "-login":
				last = r.Header.Get("Authorization")
				fmt.Fprintln(w, "logged in")
			case prefix + "-last":
				fmt.Fprintf(w, "last authorization: %s\n", last)
			default:
				http.NotFound(w, r)
			}
		}),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0),
	}
	_ = srv.ServeTLS(l, "", "")
}

// TestNetRedteam55StoredEchoNextCommand: "Echoes of a credential are
// masked, once its value went out, in every response from a host it is
// bound to, on any connection" (README, known limits; the fix of
// TestRedteam52StoredEchoOtherConnection). That memory is a field of
// one egress.Proxy (credential.injected), and the library builds a new
// proxy, with fresh credentials, for every command (network.go:
// newEgressRun, credentials.go: proxyCredentials). An agent's tool calls
// are separate commands of one Manager: the first sends the placeholder
// (the value goes out and the upstream keeps it), the next asks the same
// bound host for what it kept, through a proxy that has never injected
// anything, and reads the value in the clear.
//
// Attack: Manager.ExecArgs #1: curl -H "Authorization: Bearer $API_TOKEN"
// https://allowed.test:8455/rt55c-login; Manager.ExecArgs #2: curl
// https://allowed.test:8455/rt55c-last. Control: both in one command: the
// answer is masked.
//
// Why it works: egress/relay.go:(*relay).recall adds a value to the mask
// only when c.injected is set, and egress/credentials.go:newCredSet
// compiles new credentials (injected false) for each egress.New;
// network.go:newEgressRun calls egress.New for every command.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model round 52 set (a bound upstream that keeps a request's
// headers and shows them later).
//
// Found by red-team round 55. Fixed: egress.Injections, shared by the
// proxies of one Manager (manager.go, network.go).
func TestNetRedteam55StoredEchoNextCommand(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	host := fmt.Sprintf("allowed.test:%d", rt55cStorePort)
	s := newStoreSession(t, host, "/rt55c", boundToken(host))
	run, login, last := s.run, s.login, s.last

	// Control: one command logs in and asks: the answer is masked.
	res := run(login + ` && ` + last)
	if !strings.Contains(res.Stdout, "logged in") || !strings.Contains(res.Stdout, "last authorization: Bearer "+strings.Repeat("*", len(testSecret))) ||
		strings.Contains(res.Stdout, testSecret) {
		t.Fatalf("control: one command: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}

	// The attack: two commands of the same Manager.
	res = run(login)
	if !strings.Contains(res.Stdout, "logged in") {
		t.Fatalf("premise: login: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(last)
	if !strings.Contains(res.Stdout, "last authorization: Bearer ") {
		t.Fatalf("premise: last: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, testSecret) {
		t.Errorf("the next command of the same Manager read the credential's value from the bound host in the clear: %q", res.Stdout)
	}
}

// storeSession is a Manager (closed when the test ends) whose commands
// reach a header store (serveHeaderStore) at host, with the credential
// cred bound to it, and the curl lines that log in to the store with the
// credential's placeholder and ask what it kept.
type storeSession struct {
	t           *testing.T
	m           *agentbox.Manager
	login, last string
}

// newStoreSession starts a storeSession on the store at host whose paths
// begin with prefix, and waits until a command reaches it (the store may
// still be starting).
func newStoreSession(t *testing.T, host, prefix string, cred agentbox.Credential) *storeSession {
	t.Helper()
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{host}
	cfg.Network.Resolver = newResolver()
	cfg.Credentials = []agentbox.Credential{cred}
	cfg.CredentialProvider = fixedProvider{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	u := "https://" + host + prefix
	curl := `curl -sS --max-time 20 `
	s := &storeSession{t: t, m: m, login: curl + `-H "Authorization: Bearer $API_TOKEN" ` + u + `-login`, last: curl + u + `-last`}
	var res *agentbox.ExecResult
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		res = s.run(s.last)
		if strings.Contains(res.Stdout, "last authorization:") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(res.Stdout, "last authorization:") {
		t.Fatalf("premise: the store was not reached: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	return s
}

// run runs script with sh in a sandbox of the session's Manager.
func (s *storeSession) run(script string, opts ...agentbox.Option) *agentbox.ExecResult {
	s.t.Helper()
	res, err := s.m.ExecArgs(ctxT(s.t, 90e9), "/bin/sh", []string{"-c", script}, append(opts, agentbox.WithApproved())...)
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

// keep has the store keep the credential's value (a command logs in with
// its placeholder: the premise) and checks that the next command reads
// it masked (the control of round 55's fix).
func (s *storeSession) keep() {
	s.t.Helper()
	if res := s.run(s.login); !strings.Contains(res.Stdout, "logged in") {
		s.t.Fatalf("premise: login: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res := s.run(s.last)
	if !strings.Contains(res.Stdout, "last authorization: Bearer "+strings.Repeat("*", len(testSecret))+"\n") ||
		strings.Contains(res.Stdout, testSecret) {
		s.t.Fatalf("control: the next command: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// boundToken is API_TOKEN bound to host for the Authorization header.
func boundToken(host string) agentbox.Credential {
	return agentbox.Credential{Name: "API_TOKEN", Hosts: []string{host}, Header: "Authorization"}
}
