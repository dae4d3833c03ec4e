package egress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// Fuzzed credentials: short placeholders so the fuzzer finds them.
const (
	fuzzPH    = "agentbox-ph-FUZZ"
	fuzzValue = "REAL-VALUE-42"
	fuzzOther = "agentbox-ph-OTHR"
)

func fuzzCreds() (bound, others []*credential) {
	val := func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(fuzzValue)), nil }
	bound = []*credential{{name: "FUZZ", ph: []byte(fuzzPH), value: val}}
	others = []*credential{{name: "OTHR", ph: []byte(fuzzOther), value: val}}
	return bound, others
}

// FuzzTunnelRequest parses a request as the relay does and rebuilds its
// head with injection, checking what goes upstream: a request the relay
// accepts names the tunnel's host, is not TRACE, TRACK or CONNECT, and its
// rebuilt head parses back to the same request with the placeholder
// replaced exactly where it appeared, and nowhere else.
func FuzzTunnelRequest(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer " + fuzzPH + "\r\n\r\n",
		"POST /v1 HTTP/1.1\r\nHost: api.test:443\r\nContent-Length: 5\r\nX-Key: a" + fuzzPH + "b" + fuzzPH + "\r\n\r\nhello",
		"POST /v1 HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.test\r\nAuthorization: Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+fuzzPH)) + "\r\n\r\n",
		"GET https://api.test/x HTTP/1.1\r\nHost: api.test\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: other.test\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.test\r\nHost: other.test\r\n\r\n",
		"TRACE / HTTP/1.1\r\nHost: api.test\r\n\r\n",
		"CONNECT api.test:443 HTTP/1.1\r\nHost: api.test\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET / HTTP/1.0\r\nX: " + fuzzOther + "\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.test\r\nConnection: Upgrade, X-Hop\r\nUpgrade: websocket\r\nX-Hop: 1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.test\r\nX: a\r\n  folded " + fuzzPH + "\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	tgt := target{name: "api.test", port: 443}
	bound, others := fuzzCreds()
	f.Fuzz(func(t *testing.T, b []byte) {
		req, head, err := readTunnelRequest(bufio.NewReaderSize(bytes.NewReader(b), 4096), tgt, "https")
		if err != nil {
			var re *requestError
			if !errors.As(err, &re) && !isConnError(err) {
				t.Fatalf("error of unexpected kind %T: %v", err, err)
			}
			return
		}
		switch req.Method {
		case "TRACE", "TRACK", "CONNECT":
			t.Fatalf("accepted %s", req.Method)
		}
		if ht, err := parseHostPort(req.Host, 443); err != nil && req.Host != tgt.String() || err == nil && ht != tgt {
			t.Fatalf("accepted Host %q", req.Host)
		}
		if !bytes.HasPrefix(b, head) {
			t.Fatal("head is not what was sent")
		}
		leaked := findLeak(others, head, req.Header) != nil
		if !leaked && strings.Contains(string(head), fuzzOther) {
			t.Fatal("a placeholder in the head was not found")
		}
		upgrade := upgradeProtocol(req.Header)
		stripHopByHop(req.Header)
		want := expectedHeaders(req.Header)
		hb, err := buildHead(context.Background(), req, bound, upgrade, &echoMask{}, netip.Addr{})
		if err != nil {
			return
		}
		used := hb.used
		out := append([]byte(nil), hb.bytes()...)
		hb.wipe()
		if !bytes.HasSuffix(out, []byte("\r\n\r\n")) {
			t.Fatalf("head %q does not end with a blank line", out)
		}
		got, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out)))
		if err != nil {
			t.Fatalf("rebuilt head %q does not parse: %v", out, err)
		}
		if got.Method != req.Method || got.RequestURI != req.RequestURI || got.Host != req.Host {
			t.Fatalf("request line or host changed: %q %q %q", got.Method, got.RequestURI, got.Host)
		}
		if got.ContentLength != req.ContentLength && !(req.ContentLength == 0 && got.ContentLength == 0) {
			t.Fatalf("framing changed: %d → %d", req.ContentLength, got.ContentLength)
		}
		injected := false
		for k, vs := range want {
			if strings.Join(got.Header[k], "\n") != strings.Join(vs, "\n") {
				t.Fatalf("header %s: %q, want %q", k, got.Header[k], vs)
			}
			// Replacement is the only change a value may see.
			injected = injected || strings.Join(vs, "\n") != strings.Join(trimAll(req.Header[k]), "\n")
		}
		for k := range got.Header {
			if _, ok := want[k]; !ok && k != "Content-Length" && k != "Transfer-Encoding" && k != "Connection" && k != "Upgrade" {
				t.Fatalf("header %s appeared", k)
			}
		}
		if injected != (len(used) > 0) {
			t.Fatalf("injected %v but %d injections recorded", injected, len(used))
		}
	})
}

// expectedHeaders is what the upstream should get for h: a reference
// implementation of the replacement.
func expectedHeaders(h http.Header) http.Header {
	out := http.Header{}
	injected := false
	for k, vs := range h {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade":
			continue
		}
		for _, v := range vs {
			v = strings.Trim(v, " \t")
			orig := v
			switch {
			case !isCredentialHeader(k):
			case strings.Contains(v, fuzzPH):
				v = strings.ReplaceAll(v, fuzzPH, fuzzValue)
			default:
				if dec := decodeBasic(v); dec != nil && bytes.Contains(dec, []byte(fuzzPH)) {
					v = "Basic " + base64.StdEncoding.EncodeToString(bytes.ReplaceAll(dec, []byte(fuzzPH), []byte(fuzzValue)))
				}
			}
			injected = injected || v != orig
			out[k] = append(out[k], v)
		}
	}
	if injected {
		out["Accept-Encoding"] = []string{"identity"}
	}
	return out
}

// FuzzMaskReader checks the streaming mask: whatever the data and however
// it is cut into reads, every value comes out masked, nothing else
// changes, and the length stays.
func FuzzMaskReader(f *testing.F) {
	f.Add([]byte("a "+fuzzValue+" b"), uint8(3))
	f.Add([]byte(fuzzValue[:5]), uint8(1))
	f.Add([]byte(fuzzValue+fuzzValue[:7]+fuzzValue), uint8(4))
	f.Add(bytes.Repeat([]byte("s"), 70000), uint8(255))
	values := [][]byte{[]byte(fuzzValue), []byte("Zm9vOmJhcg==")}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		m := &echoMask{}
		for _, v := range values {
			m.add(&credential{name: "FUZZ"}, v)
		}
		want := bytes.Clone(data)
		for _, v := range values {
			want = bytes.ReplaceAll(want, v, bytes.Repeat([]byte("*"), len(v)))
		}
		out, err := io.ReadAll(m.reader(&chunkReader{b: data, n: int(chunk) + 1}, "the body"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("masked %q\nwant   %q", out, want)
		}
	})
}

// FuzzLeakReader checks the streaming scan: whatever the data and however
// it is cut into reads, a placeholder is found before any of it is passed
// on (with pass, before all of it is), and data without one passes
// unchanged.
func FuzzLeakReader(f *testing.F) {
	f.Add([]byte("hello "+fuzzOther+" world"), uint8(3))
	f.Add([]byte(fuzzOther), uint8(1))
	f.Add([]byte("agentbox-ph-OTH"), uint8(2))
	f.Add(bytes.Repeat([]byte("a"), 70000), uint8(255))
	_, others := fuzzCreds()
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		for _, pass := range []bool{false, true} {
			lr := newLeakReader(&chunkReader{b: data, n: int(chunk) + 1}, others)
			lr.pass = pass
			out, err := io.ReadAll(lr)
			if i := bytes.Index(data, []byte(fuzzOther)); i >= 0 {
				if !errors.Is(err, errPlaceholder) {
					t.Fatalf("pass %v: placeholder not found: %v", pass, err)
				}
				// Holding back, nothing of it goes; passing on, all
				// before it and never all of it.
				if !pass && len(out) > i || pass && (!bytes.HasPrefix(data, out) || len(out) < i || len(out) >= i+len(fuzzOther)) {
					t.Fatalf("pass %v: passed on %d bytes, the placeholder starts at %d", pass, len(out), i)
				}
				continue
			}
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("pass %v: clean data changed: %v", pass, err)
			}
		}
	})
}

func trimAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Trim(v, " \t")
	}
	return out
}
