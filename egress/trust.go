package egress

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Environment variables naming agentbox's own root certificates, as
// OpenSSL and Go read them.
const (
	EnvCertFile = "SSL_CERT_FILE"
	EnvCertDir  = "SSL_CERT_DIR"
)

// System bundle files (the first that exists is used) and directories
// (read only when no bundle file exists), as distributions lay them out.
var (
	systemCertFiles = []string{
		"/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu, Gentoo, Arch
		"/etc/pki/tls/certs/ca-bundle.crt",                  // Fedora, RHEL 6
		"/etc/ssl/ca-bundle.pem",                            // openSUSE
		"/etc/pki/tls/cacert.pem",                           // OpenELEC
		"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7
		"/etc/ssl/cert.pem",                                 // Alpine, macOS, BSDs
	}
	systemCertDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}
)

// ErrNoRoots is returned when no root certificate can be found.
var ErrNoRoots = errors.New("egress: no root certificates found (set SSL_CERT_FILE to a PEM bundle)")

// rootSet is a loaded set of root certificates.
type rootSet struct {
	pem  []byte // deduplicated CERTIFICATE blocks
	pool *x509.CertPool
	n    int
}

// rootCache holds the last load; it is reused while the environment and
// the sources' sizes and times are unchanged, and for at most a minute.
var rootCache struct {
	mu     sync.Mutex
	key    string
	loaded time.Time
	set    *rootSet
}

const rootCacheTTL = time.Minute

// SystemRootsPEM returns the root certificates agentbox itself trusts,
// PEM-encoded and deduplicated: the file named by SSL_CERT_FILE, else the
// first system bundle that exists; plus every file in the directories of
// SSL_CERT_DIR (colon-separated), or in the system directories when no
// bundle file was found. Unparsable blocks are skipped. Tests point
// SSL_CERT_FILE at their own root CA.
func SystemRootsPEM() ([]byte, error) {
	rs, err := systemRoots()
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), rs.pem...), nil
}

func systemRoots() (*rootSet, error) {
	files, dirs := rootSources()
	key := sourceKey(files, dirs)
	rootCache.mu.Lock()
	defer rootCache.mu.Unlock()
	if rootCache.set != nil && rootCache.key == key && time.Since(rootCache.loaded) < rootCacheTTL {
		return rootCache.set, nil
	}
	rs, err := loadRoots(files, dirs)
	if err != nil {
		return nil, err
	}
	rootCache.key, rootCache.loaded, rootCache.set = key, time.Now(), rs
	return rs, nil
}

// rootSources returns the bundle file (at most one) and directories to read.
func rootSources() (files, dirs []string) {
	if f := os.Getenv(EnvCertFile); f != "" {
		files = []string{f}
	} else {
		for _, f := range systemCertFiles {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				files = []string{f}
				break
			}
		}
	}
	if d := os.Getenv(EnvCertDir); d != "" {
		for _, x := range filepath.SplitList(d) {
			if x != "" {
				dirs = append(dirs, x)
			}
		}
	} else if len(files) == 0 {
		dirs = systemCertDirs
	}
	return files, dirs
}

// sourceKey identifies the sources' current state.
func sourceKey(files, dirs []string) string {
	var b strings.Builder
	for _, p := range append(append([]string(nil), files...), dirs...) {
		b.WriteString(p)
		if st, err := os.Stat(p); err == nil {
			b.WriteString("|" + strconv.FormatInt(st.Size(), 10) + "|" + strconv.FormatInt(st.ModTime().UnixNano(), 10))
		}
		b.WriteByte(0)
	}
	return b.String()
}

func loadRoots(files, dirs []string) (*rootSet, error) {
	rs := &rootSet{pool: x509.NewCertPool()}
	seen := map[[32]byte]bool{}
	add := func(data []byte) {
		for len(data) > 0 {
			var blk *pem.Block
			blk, data = pem.Decode(data)
			if blk == nil {
				return
			}
			if blk.Type != "CERTIFICATE" || len(blk.Headers) > 0 {
				continue
			}
			sum := sha256.Sum256(blk.Bytes)
			if seen[sum] {
				continue
			}
			cert, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				continue
			}
			seen[sum] = true
			rs.pool.AddCert(cert)
			rs.pem = append(rs.pem, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: blk.Bytes})...)
			rs.n++
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			if os.Getenv(EnvCertFile) == f {
				return nil, fmt.Errorf("egress: %s=%s: %w", EnvCertFile, f, err)
			}
			continue
		}
		add(data)
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			p := filepath.Join(d, e.Name())
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte("-----BEGIN")) {
				add(data)
			}
		}
	}
	if rs.n == 0 {
		return nil, ErrNoRoots
	}
	return rs, nil
}

// trustEnvNames are the variables that make common tools trust a CA bundle
// file: OpenSSL (curl, wget, Python's ssl, Ruby, git), Go, Node.js (as
// extra CAs), Python requests and pip, curl, git, npm, the AWS CLI, Deno
// and cargo.
var trustEnvNames = []string{
	EnvCertFile,
	"NODE_EXTRA_CA_CERTS",
	"REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE",
	"GIT_SSL_CAINFO",
	"PIP_CERT",
	"npm_config_cafile",
	"AWS_CA_BUNDLE",
	"DENO_CERT",
	"CARGO_HTTP_CAINFO",
}

// TrustEnv returns KEY=VALUE entries that point common tools at the CA
// bundle file bundlePath (see Proxy.TrustBundle), as the sandbox sees it.
// Java keeps its own trust store and is not covered.
func TrustEnv(bundlePath string) []string {
	env := make([]string, 0, len(trustEnvNames))
	for _, k := range trustEnvNames {
		env = append(env, k+"="+bundlePath)
	}
	return env
}
