//go:build linux

package egress_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// The end-to-end ECH case needs two programs the suite does not have: a
// front end in the upstream namespace that serves Encrypted Client Hello,
// and a client inside the sandbox that sends it (python's ssl and curl
// cannot). Both are this test binary, picked by an environment variable
// before TestMain runs.
const (
	envRedteam      = "AGENTBOX_REDTEAM_ROLE"
	roleECHClient   = "ech-client"
	echPort         = 8443
	echListFileName = "ech.list"
	echClientName   = "redteam-ech-client"
)

func init() {
	switch {
	case os.Getenv(envRedteam) == roleECHClient:
		os.Exit(runECHClient(os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]))
	case os.Getenv(envRole) == roleUpstream:
		go serveECHFront(os.Getenv(envDir))
	}
}

// serveECHFront runs, in the upstream namespace, a front end on
// allowedAddr:echPort that serves allowed.test and other.test, with ECH
// whose public name is allowed.test, and answers with the server name it
// routed the connection by. It waits for the address to be configured.
func serveECHFront(dir string) {
	l := listenAllowed(echPort, "redteam ech front")
	if l == nil {
		return
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, leafFileName), filepath.Join(dir, keyFileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "redteam ech front:", err)
		return
	}
	keys := newECHKeys("allowed.test")
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		EncryptedClientHelloKeys: []tls.EncryptedClientHelloKey{{
			Config: keys.config, PrivateKey: keys.privateKey, SendAsRetry: true,
		}},
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "front routed sni=%s ech=%v host=%s\n", r.TLS.ServerName, r.TLS.ECHAccepted, r.Host)
		}),
		TLSConfig: cfg, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0),
	}
	tmp := filepath.Join(dir, echListFileName+".tmp")
	if err := os.WriteFile(tmp, keys.list, 0o644); err == nil {
		_ = os.Rename(tmp, filepath.Join(dir, echListFileName))
	}
	_ = srv.ServeTLS(l, "", "")
}

// runECHClient runs inside the sandbox: a CONNECT tunnel to
// allowed.test:echPort through the sandbox's proxy, TLS for serverName
// (with ECH when useECH is "ech") trusting the suite's CA, and GET /. It
// prints the outcome.
func runECHClient(serverName, useECH string) int {
	dir := filepath.Dir(os.Args[0])
	pem, err := os.ReadFile(filepath.Join(dir, caFileName))
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	var list []byte
	if useECH == "ech" {
		if list, err = os.ReadFile(filepath.Join(dir, echListFileName)); err != nil {
			fmt.Println("error", err)
			return 0
		}
	}
	c, _, resp, err := tunnelToAllowed(echPort)
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	fmt.Println("proxy", resp.StatusCode)
	if resp.StatusCode != 200 {
		return 0
	}
	cfg := &tls.Config{ServerName: serverName, RootCAs: roots, MinVersion: tls.VersionTLS13,
		EncryptedClientHelloConfigList: list}
	if useECH == "nosni" {
		// No server_name at all: a front end picks the site from the
		// Host header inside.
		cfg.ServerName, cfg.InsecureSkipVerify = "", true
	}
	tc := tls.Client(c, cfg)
	if err := tc.Handshake(); err != nil {
		fmt.Println("tls error", err)
		return 0
	}
	fmt.Println("tls ok ech", tc.ConnectionState().ECHAccepted)
	fmt.Fprintf(tc, "GET /redteam-ech HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", serverName)
	r2, err := http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	b, _ := io.ReadAll(r2.Body)
	fmt.Println("response", strings.TrimSpace(string(b)))
	return 0
}

// echClientArgv copies this test binary into workDir (the sandbox cannot
// see the build cache's private /tmp) and returns its client invocation.
func echClientArgv(t *testing.T, serverName, useECH string) []string {
	t.Helper()
	p := filepath.Join(workDir, echClientName)
	if _, err := os.Stat(p); err != nil {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".tmp", b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			t.Fatal(err)
		}
	}
	return []string{p, serverName, useECH}
}

// awaitECHFront waits for the upstream's ECH front end to publish its
// ECH configuration list, which it does once it listens.
func awaitECHFront(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(workDir, echListFileName)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the upstream's ECH front end did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tunnelToAllowed, run inside a sandbox, opens a CONNECT tunnel to
// allowed.test:port through the sandbox's proxy and reads the answer; the
// connection (nil if the dial failed) has a 20 s deadline.
func tunnelToAllowed(port int) (net.Conn, *bufio.Reader, *http.Response, error) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:3128", 10*time.Second)
	if err != nil {
		return nil, nil, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "CONNECT allowed.test:%d HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n", port, port)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	return c, br, resp, err
}

// TestNetRedteamECHSandbox is TestNetRedteamECHFronting from inside a real
// sandbox: a program that may reach allowed.test only must not reach
// another site of allowed.test's front end by naming it in an encrypted
// inner ClientHello.
func TestNetRedteamECHSandbox(t *testing.T) {
	inNetns(t)
	awaitECHFront(t)
	pol := netPolicy{allow: []string{fmt.Sprintf("allowed.test:%d", echPort)}}
	env := []string{envRedteam + "=" + roleECHClient}
	run := func(serverName, useECH string) outcome {
		return runSandboxed(t, pol, echClientArgv(t, serverName, useECH), agentbox.WithEnv(env...))
	}

	// Control: the allowed site, plain TLS.
	o := run("allowed.test", "plain")
	if !strings.Contains(o.res.Stdout, "response front routed sni=allowed.test ech=false host=allowed.test") {
		t.Fatalf("control: the allowed site was not reached\n%s", o.dump())
	}
	// Control: the other site named in the (clear) SNI is refused.
	o = run("other.test", "plain")
	if strings.Contains(o.res.Stdout, "response ") || !strings.Contains(o.res.Stdout, "tls error") {
		t.Fatalf("control: fronting in the clear SNI was not refused\n%s", o.dump())
	}
	// The attack.
	o = run("other.test", "ech")
	if strings.Contains(o.res.Stdout, "sni=other.test") {
		t.Errorf("ESCAPE: the sandbox reached the front end's other.test site through a tunnel allowed for allowed.test, by naming other.test in an Encrypted Client Hello\n%s", o.dump())
	}
}

// TestNetRedteamSNIForms: the SNI check beside the ECH case, from inside
// a sandbox: a ClientHello without a server name is refused for a tunnel
// to a host name; the allowed name in another case is the same name.
func TestNetRedteamSNIForms(t *testing.T) {
	inNetns(t)
	awaitECHFront(t)
	pol := netPolicy{allow: []string{fmt.Sprintf("allowed.test:%d", echPort)}}
	env := []string{envRedteam + "=" + roleECHClient}
	o := runSandboxed(t, pol, echClientArgv(t, "other.test", "nosni"), agentbox.WithEnv(env...))
	if strings.Contains(o.res.Stdout, "response ") || !strings.Contains(o.res.Stdout, "tls error") {
		t.Errorf("ESCAPE: a ClientHello without a server name was let through\n%s", o.dump())
	}
	o.wantRefused(t, decisionWant{"connect", "allowed.test", echPort, "sni-mismatch", ""})
	o = runSandboxed(t, pol, echClientArgv(t, "ALLOWED.Test", "plain"), agentbox.WithEnv(env...))
	if !strings.Contains(strings.ToLower(o.res.Stdout), "response front routed sni=allowed.test") {
		t.Errorf("control: the allowed name in upper case was refused\n%s", o.dump())
	}
}
