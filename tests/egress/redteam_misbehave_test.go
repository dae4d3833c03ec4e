//go:build linux

package egress_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// misbehavePlainPort serves the object store's handler in plain HTTP.
const misbehavePlainPort = 8445

// serveMisbehaving answers the paths of an upstream that means harm to the
// proxy that reads its responses. It reports whether it answered.
func serveMisbehaving(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case "/rt-redirect":
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		return true
	case "/rt-huge-header":
		// A header line of mb MiB that never ends.
		mb, _ := strconv.Atoi(r.URL.Query().Get("mb"))
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return true
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nX-Big: ")
		chunk := []byte(strings.Repeat("a", 1<<20))
		for i := 0; i < mb; i++ {
			if _, err := brw.Write(chunk); err != nil {
				return true
			}
		}
		_ = brw.Flush()
		return true
	case "/rt-many-headers":
		// mb MiB of short header lines.
		mb, _ := strconv.Atoi(r.URL.Query().Get("mb"))
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return true
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\n")
		line := []byte("X-A: b\r\n")
		for n := 0; n < mb<<20; n += len(line) {
			if _, err := brw.Write(line); err != nil {
				return true
			}
		}
		_ = brw.Flush()
		return true
	}
	return false
}

// TestNetRedteamMisbehavingUpstream: an allowed upstream that answers
// with a header block of hundreds of MiB must not make the agentbox
// process (the proxy runs in it, outside the sandbox's memory limit) hold
// it: the machine's memory is not the sandbox's to take. The plain-HTTP
// path and an intercepted tunnel both read responses.
func TestNetRedteamMisbehavingUpstream(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	tlsHost := fmt.Sprintf("allowed.test:%d", storePort)
	plainHost := fmt.Sprintf("allowed.test:%d", misbehavePlainPort)
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{tlsHost, plainHost}
	cfg.Network.Resolver = newResolver()
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{tlsHost}, Header: "Authorization"}}
	cfg.CredentialProvider = fixedProvider{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const mb = 48
	const limit = 40 << 20 // far above any header block a proxy needs (Go's client stops at 10 MiB)
	for _, c := range []struct{ name, url string }{
		{"control_plain", fmt.Sprintf("http://%s/rt-control", plainHost)},
		{"control_intercepted", fmt.Sprintf("https://%s/rt-control", tlsHost)},
		{"plain_huge_line", fmt.Sprintf("http://%s/rt-huge-header?mb=%d", plainHost, mb)},
		{"intercepted_huge_line", fmt.Sprintf("https://%s/rt-huge-header?mb=%d", tlsHost, mb)},
		{"plain_many_lines", fmt.Sprintf("http://%s/rt-many-headers?mb=%d", plainHost, mb/4)},
	} {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var peak atomic.Uint64
			done := make(chan struct{})
			go func() {
				tick := time.NewTicker(25 * time.Millisecond)
				defer tick.Stop()
				for {
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
					select {
					case <-done:
						return
					case <-tick.C:
					}
				}
			}()
			auth := ""
			if strings.HasPrefix(c.url, "https:") {
				auth = `-H "Authorization: Bearer $API_TOKEN" `
			}
			script := `curl -sS --max-time 60 -o /dev/null -w '%{http_code}\n' ` + auth + `'` + c.url + `'`
			res, err := m.ExecArgs(ctxT(t, 120e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved(), agentbox.WithTimeout(90*time.Second))
			close(done)
			if err != nil {
				t.Fatal(err)
			}
			grew := int64(peak.Load()) - int64(base.HeapInuse)
			t.Logf("exit %d %q %q; the agentbox process's heap grew by %d MiB", res.ExitCode, res.Stdout, res.Stderr, grew>>20)
			if strings.Contains(c.name, "control") && strings.TrimSpace(res.Stdout) != "404" {
				t.Errorf("control: want the store's 404, got %q %q", res.Stdout, res.Stderr)
			}
			if grew > limit {
				t.Errorf("ESCAPE (memory): one response from an allowed upstream made the proxy hold %d MiB of the host's memory", grew>>20)
			}
		})
	}
}

// TestNetRedteamRedirect: the proxy relays an allowed upstream's redirect
// to a denied host and never follows it; a client that follows it asks
// the proxy anew, and is refused.
func TestNetRedteamRedirect(t *testing.T) {
	inNetns(t)
	plainHost := fmt.Sprintf("allowed.test:%d", misbehavePlainPort)
	m, r, decisions := newManager(t, netPolicy{allow: []string{plainHost, "allowed.test"}})
	cases := []struct{ name, to string }{
		{"other_host", "http://other.test/rt-bad-redirect"},
		{"metadata", "http://169.254.169.254/rt-bad-redirect-meta"},
		{"loopback", "http://127.0.0.1:3128/rt-bad-redirect-proxy"},
		{"control_allowed", "http://allowed.test/rt-redirect-ok"},
	}
	for _, c := range cases {
		argv := curlArgv("-L", "http://"+plainHost+"/rt-redirect?to="+c.to)
		o := execIn(t, m, r, decisions, argv)
		res := o.curl(t)
		if !strings.Contains(res.stderr, "302 Found") {
			t.Errorf("%s: the redirect did not reach the client\n%s", c.name, o.dump())
		}
		if c.name == "control_allowed" {
			if !strings.Contains(res.body, "path=/rt-redirect-ok") {
				t.Errorf("control: the followed redirect to an allowed host failed\n%s", o.dump())
			}
			continue
		}
		if strings.HasPrefix(res.code, "2") || strings.Contains(res.body, "upstream ") {
			t.Errorf("ESCAPE: %s: the redirect target was reached (code %s)\n%s", c.name, res.code, o.dump())
		}
	}
	for _, e := range upstreamEvents(t, "rt-bad-redirect") {
		t.Errorf("ESCAPE: the upstream saw %q", e)
	}
	expectUnreached(t, otherAddr+":80", metadataAddr+":80")
}
