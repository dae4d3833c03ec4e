package egress

import (
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			t.Fatalf("malformed entry %q", kv)
		}
		if _, dup := m[k]; dup {
			t.Fatalf("duplicate key %s", k)
		}
		m[k] = v
	}
	return m
}

func TestEnv(t *testing.T) {
	m := envMap(t, Env("127.0.0.1:3128"))
	want := map[string]string{
		"HTTP_PROXY":             "http://127.0.0.1:3128",
		"HTTPS_PROXY":            "http://127.0.0.1:3128",
		"ALL_PROXY":              "socks5h://127.0.0.1:3128",
		"http_proxy":             "http://127.0.0.1:3128",
		"https_proxy":            "http://127.0.0.1:3128",
		"all_proxy":              "socks5h://127.0.0.1:3128",
		"NO_PROXY":               "",
		"no_proxy":               "",
		"npm_config_proxy":       "http://127.0.0.1:3128",
		"npm_config_https_proxy": "http://127.0.0.1:3128",
		"NODE_USE_ENV_PROXY":     "1",
		"GIT_CONFIG_COUNT":       "1",
		"GIT_CONFIG_KEY_0":       "http.proxy",
		"GIT_CONFIG_VALUE_0":     "http://127.0.0.1:3128",
		"PIP_PROXY":              "http://127.0.0.1:3128",
		"CARGO_HTTP_PROXY":       "http://127.0.0.1:3128",
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, v)
		}
	}
	for _, p := range []string{"-Dhttp.proxyHost=127.0.0.1", "-Dhttp.proxyPort=3128", "-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=3128"} {
		if !strings.Contains(m["JAVA_TOOL_OPTIONS"], p) {
			t.Errorf("JAVA_TOOL_OPTIONS %q lacks %s", m["JAVA_TOOL_OPTIONS"], p)
		}
	}
	m6 := envMap(t, Env("[::1]:3128"))
	if m6["HTTPS_PROXY"] != "http://[::1]:3128" || !strings.Contains(m6["JAVA_TOOL_OPTIONS"], "-Dhttps.proxyHost=::1 ") {
		t.Errorf("IPv6 proxy address: %q, %q", m6["HTTPS_PROXY"], m6["JAVA_TOOL_OPTIONS"])
	}
}

// requestLog is an upstream that records the paths it served.
type requestLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *requestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.paths = append(l.paths, r.Host+r.URL.Path)
	l.mu.Unlock()
	fmt.Fprint(w, "hello from upstream\n")
}

func (l *requestLog) saw(hostPath string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.paths {
		if p == hostPath {
			return true
		}
	}
	return false
}

// TestEnvRealClients runs real clients with nothing but Env (plus PATH and
// a scratch HOME) and checks their requests arrive through the proxy.
func TestEnvRealClients(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	log := &requestLog{}
	plain := httptest.NewServer(log)
	t.Cleanup(plain.Close)
	h.dial.route(ap(addrAllowed, 80), plain.Listener.Addr().String())
	cert, _ := testCert(t, "allowed.test")
	secure := httptest.NewUnstartedServer(log)
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	secure.StartTLS()
	t.Cleanup(secure.Close)
	h.dial.route(ap(addrAllowed, 443), secure.Listener.Addr().String())

	home := t.TempDir()
	caFile := filepath.Join(home, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	// A user git config pointing elsewhere must not win over Env's.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[http]\n\tproxy = http://127.0.0.1:9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	javaSrc := filepath.Join(home, "Get.java")
	if err := os.WriteFile(javaSrc, []byte(`public class Get { public static void main(String[] a) throws Exception {
  var c = (java.net.HttpURLConnection) new java.net.URI(a[0]).toURL().openConnection();
  System.out.print(new String(c.getInputStream().readAllBytes())); } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(Env(h.addr), "PATH="+os.Getenv("PATH"), "HOME="+home, "GIT_SSL_CAINFO="+caFile, "GIT_TERMINAL_PROMPT=0")

	tests := []struct {
		name  string
		slow  bool
		args  []string
		saw   string // host+path the upstream must have served
		maybe bool   // the client may fail after the request (not a real server for it)
	}{
		{name: "curl http", args: []string{"curl", "-fsS", "http://allowed.test/curl-http"}, saw: "allowed.test/curl-http"},
		{name: "curl https", args: []string{"curl", "-fsS", "--cacert", caFile, "https://allowed.test/curl-https"}, saw: "allowed.test/curl-https"},
		{name: "wget", args: []string{"wget", "-q", "-O", "-", "http://allowed.test/wget"}, saw: "allowed.test/wget"},
		{name: "python urllib", args: []string{"python3", "-c", "import urllib.request;print(urllib.request.urlopen('http://allowed.test/python').read())"}, saw: "allowed.test/python"},
		{name: "git https", args: []string{"git", "ls-remote", "https://allowed.test/repo.git"}, saw: "allowed.test/repo.git/info/refs", maybe: true},
		{name: "npm", slow: true, args: []string{"npm", "view", "--registry", "http://allowed.test/", "left-pad", "version"}, saw: "allowed.test/left-pad", maybe: true},
		{name: "java", slow: true, args: []string{"java", javaSrc, "http://allowed.test/java"}, saw: "allowed.test/java"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(tt.args[0]); err != nil {
				t.Skipf("%s not installed", tt.args[0])
			}
			if tt.slow && testing.Short() {
				t.Skip("slow client skipped in -short")
			}
			cmd := exec.Command(tt.args[0], tt.args[1:]...)
			cmd.Env, cmd.Dir = env, home
			out, err := runWithTimeout(cmd, 60*time.Second)
			if err != nil && !tt.maybe {
				t.Fatalf("%v: %v\n%s", tt.args, err, out)
			}
			if !tt.maybe && !strings.Contains(string(out), "hello from upstream") {
				t.Errorf("output %q", out)
			}
			if !log.saw(tt.saw) {
				t.Errorf("upstream never served %s through the proxy; client said %s", tt.saw, out)
			}
		})
	}

	t.Run("curl refused", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl not installed")
		}
		cmd := exec.Command("curl", "-sS", "https://evil.test/")
		cmd.Env = env
		out, err := runWithTimeout(cmd, 30*time.Second)
		if err == nil || !strings.Contains(string(out), "403") {
			t.Fatalf("curl to a refused host: %v %s", err, out)
		}
	})
}

func runWithTimeout(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	timer := time.AfterFunc(d, func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	return cmd.CombinedOutput()
}
