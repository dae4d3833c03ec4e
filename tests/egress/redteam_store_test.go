//go:build linux

package egress_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// storePort is where the upstream namespace serves a small object store
// on allowedAddr: like Cloud Storage, S3 or Azure Blob, it keeps the
// user metadata headers (x-goog-meta-*, x-amz-meta-*, x-ms-meta-*) of a
// PUT and sends them back with every later GET or HEAD of the object.
const storePort = 8444

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveObjectStore(os.Getenv(envDir))
	}
}

// listenAllowed listens on allowedAddr:port in the upstream namespace,
// waiting up to a minute for the address to be configured; nil (said on
// stderr, as who) when it never is.
func listenAllowed(port int, who string) net.Listener {
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var l net.Listener
		if l, err = net.Listen("tcp4", net.JoinHostPort(allowedAddr, fmt.Sprint(port))); err == nil {
			return l
		}
	}
	fmt.Fprintln(os.Stderr, who+":", err)
	return nil
}

func serveObjectStore(dir string) {
	l := listenAllowed(storePort, "redteam object store")
	if l == nil {
		return
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, leafFileName), filepath.Join(dir, keyFileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "redteam object store:", err)
		return
	}
	var mu sync.Mutex
	objects := map[string]http.Header{}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if serveMisbehaving(w, r) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			switch r.Method {
			case http.MethodPut:
				_, _ = io.Copy(io.Discard, r.Body)
				meta := http.Header{}
				for k, vs := range r.Header {
					if strings.Contains(strings.ToLower(k), "-meta-") {
						meta[k] = vs
					}
				}
				objects[r.URL.Path] = meta
				fmt.Fprintln(w, "stored")
			default:
				meta, ok := objects[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				for k, vs := range meta {
					w.Header()[k] = vs
				}
				fmt.Fprintln(w, "object")
			}
		}),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0),
	}
	// The plain-HTTP twin listens as patiently as the TLS one (a single
	// try failed once in CI, and every plain test then got 502).
	go func() {
		if pl := listenAllowed(misbehavePlainPort, "redteam object store, plain"); pl != nil {
			plain := &http.Server{Handler: srv.Handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
			_ = plain.Serve(pl)
		}
	}()
	_ = srv.ServeTLS(l, "", "")
}

// TestNetRedteamStoredMetadata: a credential bound to a host without a
// header of its own goes into headers "of a credential's shape", by the
// ending of their names. An object store's user metadata headers can
// have such names (x-goog-meta-token, x-amz-meta-api-key): the store
// keeps the injected value and hands it back to the next GET, which
// carries no value and so is not masked. With the built-in vendor hosts
// this is GOOGLE_* → *.googleapis.com, which includes Cloud Storage
// (storage.googleapis.com and BUCKET.storage.googleapis.com).
func TestNetRedteamStoredMetadata(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	host := fmt.Sprintf("allowed.test:%d", storePort)
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{host}
	cfg.Network.Resolver = newResolver()
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{host}}}
	cfg.CredentialProvider = fixedProvider{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	u := "https://" + host
	curl := `curl -sS --max-time 20 -D - `
	script := curl + `-X PUT --data x -H "Authorization: Bearer $API_TOKEN" ` + u + `/control >/dev/null; ` +
		curl + u + `/control; ` +
		`for h in x-goog-meta-token x-amz-meta-api-key x-ms-meta-secret; do ` +
		curl + `-X PUT --data x -H "$h: $API_TOKEN" ` + u + `/obj-$h >/dev/null; ` +
		curl + u + `/obj-$h; done`
	deadline := time.Now().Add(30 * time.Second)
	var res *agentbox.ExecResult
	for {
		res, err = m.ExecArgs(ctxT(t, 90e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Stdout, "object") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the store may still be starting
	}
	t.Logf("exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	if !strings.Contains(res.Stdout, "object") {
		t.Fatalf("control: the object store was not reached")
	}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.Contains(l, testSecret) {
			t.Errorf("ESCAPE: the real value came back from the store: %q", strings.TrimSpace(l))
		}
	}
}
