package egress

import (
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"
)

// An upstream a credential is bound to may repeat what a request carried:
// CORS reflects Origin, echo services and some error pages repeat the
// headers. The sandbox chooses the request, so it must not be able to get
// the injected value back in the clear that way.
func TestEchoedValueMasked(t *testing.T) {
	e := newCredEnv(t)
	basic := func(ph string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+ph))
	}
	cases := []struct {
		name, host, cred, path string
		hdr                    func(ph string) map[string]string
	}{
		{"CORS Origin", "api.test", "API_KEY", "/", func(ph string) map[string]string {
			return map[string]string{"Origin": ph, "Authorization": "Bearer " + ph}
		}},
		{"echoed Authorization", "api.test", "API_KEY", "/echo", func(ph string) map[string]string {
			return map[string]string{"Authorization": "Bearer " + ph, "Accept-Encoding": "gzip"}
		}},
		{"echoed custom header", "api.test", "API_KEY", "/echo", func(ph string) map[string]string {
			return map[string]string{"X-Api-Key": ph}
		}},
		{"echoed Basic credentials", "other.test", "OTHER_KEY", "/echo", func(ph string) map[string]string {
			return map[string]string{"Authorization": basic(ph)}
		}},
		{"echoed in the status line", "api.test", "API_KEY", "/echo/status", func(ph string) map[string]string {
			return map[string]string{"Authorization": "Bearer " + ph}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, trailer := doRaw(t, e, tc.host, tc.path, tc.hdr(e.ph[tc.cred]))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %q", resp.StatusCode, body)
			}
			e.assertNoValue(t, body, fmt.Sprint(resp.Header), resp.Status, trailer,
				base64.StdEncoding.EncodeToString([]byte("x-access-token:"+apiValue)))
			for _, v := range []string{apiValue, otherValue} {
				enc := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + v))
				if strings.Contains(body, enc) || strings.Contains(fmt.Sprint(resp.Header), enc) || strings.Contains(trailer, enc) {
					t.Fatalf("the Basic credentials came back in the clear")
				}
			}
			// The control: the upstream did get the real value, and the
			// response arrived whole.
			reqs := e.up[tc.host].all()
			last := reqs[len(reqs)-1]
			var head strings.Builder
			_ = last.Header.Write(&head)
			if _, pass, ok := (&http.Request{Header: last.Header}).BasicAuth(); ok {
				head.WriteString(pass)
			}
			want := otherValue
			if tc.cred == "API_KEY" {
				want = apiValue
			}
			if !strings.Contains(head.String(), want) {
				t.Fatalf("the upstream did not get the value: %v", last.Header)
			}
			if tc.path == "/echo" && !strings.HasSuffix(body, "\n") || tc.path == "/" && body != "ok "+tc.host {
				t.Errorf("body changed beyond the values: %q", body[max(0, len(body)-200):])
			}
			// A client's wish for compression is dropped where a value
			// goes: the mask must see the body.
			if ae := last.Header.Get("Accept-Encoding"); ae != "identity" {
				t.Errorf("upstream Accept-Encoding %q, want identity", ae)
			}
		})
	}
	// Every echo is on record, by credential and place, as a blocked leak
	// (recorded once the response has gone out, so wait for them).
	wants := []string{
		"API_KEY: the upstream repeated API_KEY's value in its response (the status line)",
		"API_KEY: the upstream repeated API_KEY's value in its response (header X-Echo-Authorization, the body, trailer X-Echo-Trailer)",
		"OTHER_KEY: the upstream repeated OTHER_KEY's value in its response (header X-Echo-Authorization, the body, trailer X-Echo-Trailer)",
	}
	var all string
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var reasons []string
		for _, d := range e.decisionsWith(RuleCredentialLeak) {
			if d.Allowed {
				t.Errorf("echo decision allowed: %+v", d)
			}
			reasons = append(reasons, d.Credential+": "+d.Reason)
		}
		all = strings.Join(reasons, "\n")
		if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(all, w) }) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(all, want) {
			t.Errorf("no decision %q in\n%s", want, all)
		}
	}
	e.assertNoValue(t)
}

// Origin is not a header a credential goes into by default (servers
// reflect it); the placeholder goes out as it is, and the refusal to
// inject is on record with what to change.
func TestValueNotInjectedIntoOrigin(t *testing.T) {
	e := newCredEnv(t)
	ph := e.ph["API_KEY"]
	resp, body, _ := doRaw(t, e, "api.test", "/", map[string]string{"Origin": ph, "X-Api-Key": ph, "Cookie": "s=" + ph})
	if resp.StatusCode != 200 || body != "ok api.test" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	got := e.up["api.test"].all()[0].Header
	if got.Get("Origin") != ph || got.Get("Cookie") != "s="+ph {
		t.Errorf("the value went into Origin or Cookie: %v", got)
	}
	if got.Get("X-Api-Key") != apiValue {
		t.Errorf("X-Api-Key %q, want the value", got.Get("X-Api-Key"))
	}
	if acao := resp.Header.Get("Access-Control-Allow-Origin"); acao != ph {
		t.Errorf("reflected Origin %q, want the placeholder", acao)
	}
	d := e.waitRule(t, RuleCredentialHeader, 1)[0]
	if d.Credential != "API_KEY" || !strings.Contains(d.Reason, "Cookie, Origin") || !strings.Contains(d.Reason, "name the header") {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t, fmt.Sprint(resp.Header))
}

// A header name that holds the value is masked although the response's
// reader changed the case of its letters, and so is one that holds the
// value in another case.
func TestEchoInHeaderNameMasked(t *testing.T) {
	e := newCredEnv(t)
	resp, body, _ := doRaw(t, e, "api.test", "/echo/name", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]})
	if resp.StatusCode != http.StatusOK || body != "ok" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	stars := strings.Repeat("*", len(apiValue))
	for _, want := range []string{"X-E-" + stars, "X-L-" + stars + "-X"} {
		if _, ok := resp.Header[want]; !ok {
			t.Errorf("no header %q in %v", want, resp.Header)
		}
	}
	if h := strings.ToLower(fmt.Sprint(resp.Header)); strings.Contains(h, strings.ToLower(apiValue)) {
		t.Fatalf("the value came back in a header name: %v", resp.Header)
	}
	d := e.waitRule(t, RuleCredentialLeak, 1)[0]
	if d.Allowed || !strings.Contains(d.Reason, "header name") {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t)
}

// A request that carries a value gets its answer whole: Range and
// If-Range are not sent, or the parts would bring the value back in
// pieces the mask cannot recognise.
func TestRangeOfEchoComesWhole(t *testing.T) {
	e := newCredEnv(t)
	whole := "value: Bearer " + strings.Repeat("*", len(apiValue)) + "\n"
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"one range", map[string]string{"Range": "bytes=16-40"}},
		{"two ranges", map[string]string{"Range": "bytes=6-15,16-40"}},
		{"If-Range", map[string]string{"Range": "bytes=16-40", "If-Range": `"v1"`}},
		{"suffix range", map[string]string{"Range": "bytes=-20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.hdr["Authorization"] = "Bearer " + e.ph["API_KEY"]
			resp, body, _ := doRaw(t, e, "api.test", "/echo/range", tc.hdr)
			if resp.StatusCode != http.StatusOK || body != whole {
				t.Fatalf("%d %q, want 200 %q", resp.StatusCode, body, whole)
			}
			reqs := e.up["api.test"].all()
			got := reqs[len(reqs)-1].Header
			if got.Get("Range") != "" || got.Get("If-Range") != "" || got.Get("Authorization") != "Bearer "+apiValue {
				t.Errorf("upstream headers %v", got)
			}
			e.assertNoValue(t, body)
		})
	}
	// Without a value sent to the host yet, the answer is asked for whole
	// all the same: one may go out on another connection while it comes,
	// which the mask must then read (red-team round 55).
	fresh := newCredEnv(t)
	resp, body, _ := doRaw(t, fresh, "api.test", "/echo/range", map[string]string{"Range": "bytes=0-4", "If-Range": `"v1"`})
	if resp.StatusCode != http.StatusOK || body != "value: \n" {
		t.Fatalf("range without a value: %d %q", resp.StatusCode, body)
	}
	reqs := fresh.up["api.test"].all()
	if got := reqs[len(reqs)-1].Header; got.Get("Range") != "" || got.Get("If-Range") != "" {
		t.Errorf("upstream headers %v", got)
	}
}

// wsPayload joins the payloads of the server's WebSocket frames in b.
func wsPayload(t *testing.T, b string) string {
	t.Helper()
	var out strings.Builder
	for len(b) > 0 {
		if len(b) < 2 || b[1]&0x80 != 0 || b[1]&0x7f >= 126 {
			t.Fatalf("not a short unmasked frame: %q", b)
		}
		n := int(b[1] & 0x7f)
		if len(b) < 2+n {
			t.Fatalf("frame cut short: %q", b)
		}
		out.WriteString(b[2 : 2+n])
		b = b[2+n:]
	}
	return out.String()
}

// A part the request did not ask for is refused: it could hold a piece
// of the value.
func TestPartialEchoRefused(t *testing.T) {
	e := newCredEnv(t)
	resp, body, _ := doRaw(t, e, "api.test", "/echo/partial", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]})
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleResponseUnchecked {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, body)
	}
	if strings.Contains(body, apiValue[:10]) {
		t.Fatalf("a piece of the value came back: %q", body)
	}
	// The control: without a value (sent to the host by this proxy), a
	// part passes.
	resp, body, _ = doRaw(t, newCredEnv(t), "api.test", "/echo/partial", map[string]string{"X-Other": "x"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("plain part: %d %q", resp.StatusCode, body)
	}
	e.assertNoValue(t)
}

// upgradeExchange sends one request asking to switch protocols and
// returns the response and whatever follows it (the upgraded stream, or
// the body).
func upgradeExchange(t *testing.T, e *credEnv, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	tc, br := e.interceptedConn(t, "api.test:443")
	defer tc.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: api.test\r\n", path)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(tc, b.String()); err != nil {
		t.Fatal(err)
	}
	_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	var rest []byte
	if resp.StatusCode == http.StatusSwitchingProtocols {
		rest, _ = io.ReadAll(br)
	} else {
		rest, _ = io.ReadAll(resp.Body)
	}
	return resp, string(rest)
}

// A request that carries a value does not negotiate a compressed upgraded
// stream (permessage-deflate, h2c), and an upstream that compresses one
// anyway is refused: the mask sees only bytes as they are. No request
// upgrades to a multiplexed protocol (h2c), with a value or without.
func TestUpgradeWithValueNotCompressed(t *testing.T) {
	e := newCredEnv(t)
	ws := func(ph string) map[string]string {
		h := map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
			"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits"}
		if ph != "" {
			h["Authorization"] = "Bearer " + ph
		}
		return h
	}
	frame := "frame: Bearer " + strings.Repeat("*", len(apiValue)) + "\n"

	t.Run("permessage-deflate offered", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/echo/ws", ws(e.ph["API_KEY"]))
		if resp.StatusCode != http.StatusSwitchingProtocols || wsPayload(t, rest) != frame {
			t.Fatalf("%d %v %q, want 101 and %q", resp.StatusCode, resp.Header, rest, frame)
		}
		reqs := e.up["api.test"].all()
		if got := reqs[len(reqs)-1].Header; got.Get("Sec-Websocket-Extensions") != "" || got.Get("Upgrade") != "websocket" {
			t.Errorf("upstream headers %v", got)
		}
		e.assertNoValue(t, rest)
	})
	t.Run("permessage-deflate unasked", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/echo/ws?deflate", ws(e.ph["API_KEY"]))
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleResponseUnchecked ||
			!strings.Contains(rest, "permessage-deflate") {
			t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, rest)
		}
	})
	t.Run("h2c", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/", map[string]string{"Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c",
			"HTTP2-Settings": "AAMAAABkAAQAAP__", "Authorization": "Bearer " + e.ph["API_KEY"]})
		if resp.StatusCode != http.StatusOK || rest != "ok api.test" {
			t.Fatalf("%d %q", resp.StatusCode, rest)
		}
		reqs := e.up["api.test"].all()
		if got := reqs[len(reqs)-1].Header; got.Get("Upgrade") != "" || got.Get("Http2-Settings") != "" {
			t.Errorf("upstream headers %v", got)
		}
	})
	// Without a value too: HTTP/2's streams each name a host, which the
	// relay, checking one request's Host at a time, would never see.
	t.Run("h2c without a value", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/", map[string]string{"Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c, websocket",
			"HTTP2-Settings": "AAMAAABkAAQAAP__"})
		if resp.StatusCode != http.StatusOK || rest != "ok api.test" {
			t.Fatalf("%d %q", resp.StatusCode, rest)
		}
		reqs := e.up["api.test"].all()
		if got := reqs[len(reqs)-1].Header; got.Get("Upgrade") != "websocket" {
			t.Errorf("upstream headers %v", got)
		}
	})
	t.Run("h2c unasked, without a value", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/echo/ws?h2c", ws(""))
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleUnsupported ||
			!strings.Contains(rest, "h2c") {
			t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, rest)
		}
	})
	t.Run("h2c settings without Connection", func(t *testing.T) {
		resp, rest := upgradeExchange(t, e, "/", map[string]string{"Connection": "Upgrade", "Upgrade": "websocket, H2C",
			"HTTP2-Settings": "AAMAAABkAAQAAP__", "Authorization": "Bearer " + e.ph["API_KEY"]})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %q", resp.StatusCode, rest)
		}
		reqs := e.up["api.test"].all()
		if got := reqs[len(reqs)-1].Header; got.Get("Upgrade") != "websocket" || got.Get("Http2-Settings") != "" {
			t.Errorf("upstream headers %v", got)
		}
	})
	// Without a value sent to the host yet, the extension is withheld all
	// the same: one may go out on another connection while the stream
	// runs, which the mask must then read (red-team round 55). The
	// stream itself passes.
	t.Run("no value yet", func(t *testing.T) {
		e := newCredEnv(t)
		resp, rest := upgradeExchange(t, e, "/echo/ws", ws(""))
		if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-Websocket-Extensions") != "" || wsPayload(t, rest) != "frame: \n" {
			t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, rest)
		}
		reqs := e.up["api.test"].all()
		if got := reqs[len(reqs)-1].Header; got.Get("Sec-Websocket-Extensions") != "" {
			t.Errorf("upstream headers %v", got)
		}
	})
	e.assertNoValue(t)
}

func TestCheckedUpgrade(t *testing.T) {
	for in, want := range map[string]string{
		"websocket": "websocket", "h2c": "", "H2C, websocket": "websocket", "HTTP/2.0": "", "SPDY/3.1": "",
		"websocket, h2": "websocket", "echo/1, tls/1.2": "echo/1, tls/1.2", " ,h2c ,": "",
	} {
		if got := checkedUpgrade(in); got != want {
			t.Errorf("checkedUpgrade(%q) = %q, want %q", in, got, want)
		}
	}
}

// Headers servers store and repeat get no value, although named for a key
// or token: Stripe stores Idempotency-Key and repeats it in the events it
// sends to webhooks the agent can register.
func TestValueNotInjectedIntoStoredHeaders(t *testing.T) {
	for _, k := range []string{"Idempotency-Key", "X-Idempotency-Key", "X-Csrf-Token", "Next-Page-Token", "Cache-Key"} {
		t.Run(k, func(t *testing.T) {
			e := newCredEnv(t)
			ph := e.ph["API_KEY"]
			resp, body, _ := doRaw(t, e, "api.test", "/", map[string]string{k: ph, "Authorization": "Bearer " + ph})
			if resp.StatusCode != 200 || body != "ok api.test" {
				t.Fatalf("%d %q", resp.StatusCode, body)
			}
			got := e.up["api.test"].all()[0].Header
			if got.Get(k) != ph {
				t.Errorf("%s went upstream as %q, want the placeholder", k, got.Get(k))
			}
			if got.Get("Authorization") != "Bearer "+apiValue {
				t.Errorf("Authorization %q, want the value", got.Get("Authorization"))
			}
			d := e.waitRule(t, RuleCredentialHeader, 1)[0]
			if d.Credential != "API_KEY" || !strings.Contains(d.Reason, textproto.CanonicalMIMEHeaderKey(k)) {
				t.Errorf("decision %+v", d)
			}
			e.assertNoValue(t)
		})
	}
}

// An unreadable response is refused with the parser's error, which quotes
// it: masked there too.
func TestEchoInUnreadableResponseMasked(t *testing.T) {
	e := newCredEnv(t)
	resp, body, _ := doRaw(t, e, "api.test", "/echo/malformed", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]})
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "the upstream's text is withheld") || strings.Contains(body, "Bearer-") {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	e.assertNoValue(t, body)
}

// A response compressed although the request asked for identity cannot be
// looked into: refused, not passed on unchecked, whichever of its
// Content-Encoding fields or listed codings says so.
func TestCompressedEchoRefused(t *testing.T) {
	e := newCredEnv(t)
	for _, tc := range []struct{ name, query string }{
		{"gzip", ""},
		{"identity then gzip", "?ce=identity&ce=gzip"},
		{"empty then gzip", "?ce=&ce=gzip"},
		{"a list", "?ce=identity,+gzip"},
		{"upper case", "?ce=GZIP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, _ := doRaw(t, e, "api.test", "/echo/gzip"+tc.query, map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]})
			if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleResponseUnchecked {
				t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, body)
			}
			if !strings.Contains(strings.ToLower(body), "content-encoding: gzip") {
				t.Errorf("refusal %q does not say why", body)
			}
			e.assertNoValue(t, body)
		})
	}
	// An identity coding, however spelt, is no compression.
	resp, body, _ := doRaw(t, e, "api.test", "/echo/gzip?ce=identity&ce=Identity", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("identity answer: %d %q", resp.StatusCode, body)
	}
	// Without a value sent to the host yet, an answer compressed unasked
	// passes (nothing to mask), but the request asked for identity all
	// the same: a value may go out on another connection while it comes
	// (red-team round 55).
	resp, body, _ = doRaw(t, newCredEnv(t), "api.test", "/echo/gzip", map[string]string{"Accept-Encoding": "gzip"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("compressed answer without a value: %d %v", resp.StatusCode, resp.Header)
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if text, err := io.ReadAll(zr); err != nil || !strings.Contains(string(text), "Accept-Encoding: identity") {
		t.Fatalf("%q %v", text, err)
	}
	e.assertNoValue(t)
}

// After a protocol switch the upstream's bytes are masked too.
func TestEchoInUpgradedStreamMasked(t *testing.T) {
	e := newCredEnv(t)
	tc, br := e.interceptedConn(t, "api.test:443")
	defer tc.Close()
	fmt.Fprintf(tc, "GET /echo/upgrade HTTP/1.1\r\nHost: api.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\nAuthorization: Bearer %s\r\n\r\n", e.ph["API_KEY"])
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("%v %v", resp, err)
	}
	_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, _ := io.ReadAll(br)
	if want := "frame: Bearer " + strings.Repeat("*", len(apiValue)) + "\n"; string(rest) != want {
		t.Errorf("upgraded stream %q, want %q", rest, want)
	}
	e.assertNoValue(t, string(rest))
}

// The mask holds back the last bytes of a stream the same whatever they
// are, and releases them when more comes, at the end, or after a pause:
// a stream that pauses is passed on up to the pause, a little late.
func TestMaskReaderPassesPausedStream(t *testing.T) {
	m := &echoMask{}
	m.add(&credential{name: "K"}, []byte("secret-value"))
	pr, pw := io.Pipe()
	mr := m.reader(pr, "the body")
	defer mr.wipe()
	mr.quiet = 50 * time.Millisecond
	// read reads until n bytes have come and says how long the last took.
	read := func(n int) (string, time.Duration) {
		t.Helper()
		start := time.Now()
		var got []byte
		buf := make([]byte, 100)
		for len(got) < n {
			k, err := mr.Read(buf)
			if err != nil {
				t.Fatalf("after %q: %v", got, err)
			}
			got = append(got, buf[:k]...)
		}
		return string(got), time.Since(start)
	}
	write := func(s ...string) {
		go func() {
			for _, p := range s {
				_, _ = io.WriteString(pw, p)
			}
		}()
	}
	for _, tc := range []struct {
		write []string
		want  string
	}{
		{[]string{"data: 1\n\n"}, "data: 1\n\n"},
		{[]string{"data: secret-value\n\n"}, "data: ************\n\n"},
		{[]string{"data: xyzw"}, "data: xyzw"},                           // held as long as
		{[]string{"data: secr"}, "data: secr"},                           // a value's start
		{[]string{"data: secr", "et-value!\n"}, "data: ************!\n"}, // split, no pause
		{[]string{"data: secr"}, "data: secr"},                           // a pause within a value
		{[]string{"et-value!\n"}, "********!\n"},
	} {
		write(tc.write...)
		got, took := read(len(tc.want))
		if got != tc.want {
			t.Fatalf("after %q: read %q, want %q", tc.write, got, tc.want)
		}
		if took < mr.quiet {
			t.Errorf("after %q: the end came after %v, before the pause it is held for", tc.write, took)
		}
	}
	// The end releases what is held at once.
	start := time.Now()
	go func() {
		_, _ = io.WriteString(pw, "data: 2")
		pw.Close()
	}()
	if out, err := io.ReadAll(mr); string(out) != "data: 2" || err != nil || time.Since(start) >= mr.quiet {
		t.Fatalf("end: %q %v after %v", out, err, time.Since(start))
	}
	want := []string{"the body", "the body (its start unmasked: the upstream paused within it)"}
	if got := m.hits[m.owners[0]]; !slices.Equal(got, want) {
		t.Errorf("hits %q, want %q", got, want)
	}
}

// doRaw sends one request through a CONNECT tunnel to host with the
// headers as given (no transparent decompression) and returns the
// response, its body and its trailer block.
func doRaw(t *testing.T, e *credEnv, host, path string, hdr map[string]string) (*http.Response, string, string) {
	t.Helper()
	tc, br := e.interceptedConn(t, host+":443")
	defer tc.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, host)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(tc, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body), fmt.Sprint(resp.Trailer)
}

// Transfer codings other than chunked hide the body too (Go's reader
// refuses them today; the check does not rely on it).
func TestHiddenCoding(t *testing.T) {
	for _, tc := range []struct {
		ce, te []string
		want   string
	}{
		{nil, nil, ""},
		{[]string{"identity"}, []string{"chunked"}, ""},
		{[]string{"identity", "br"}, nil, "Content-Encoding: br"},
		{[]string{" , deflate"}, nil, "Content-Encoding: deflate"},
		{nil, []string{"gzip", "chunked"}, "Transfer-Encoding: gzip"},
		// An upstream's own text is not quoted: it may be the value.
		{[]string{"s3cr3t-value"}, nil, "Content-Encoding: a token it does not know, withheld"},
		{[]string{"GZIP, s3cr3t"}, nil, "Content-Encoding: GZIP"},
		{nil, []string{"s3cr3t"}, "Transfer-Encoding: a token it does not know, withheld"},
	} {
		resp := &http.Response{Header: http.Header{}, TransferEncoding: tc.te}
		if tc.ce != nil {
			resp.Header["Content-Encoding"] = tc.ce
		}
		if got := hiddenCoding(resp); got != tc.want {
			t.Errorf("hiddenCoding(%q, %q) = %q, want %q", tc.ce, tc.te, got, tc.want)
		}
	}
}

// The compressed or multiplexed streams a 101 switches to are named only
// by the names the proxy knows.
func TestCompressedStreamNames(t *testing.T) {
	for _, tc := range []struct {
		header, value, want string
	}{
		{"Upgrade", "websocket", ""},
		{"Upgrade", "h2c", "Upgrade: h2c"},
		{"Upgrade", "HTTP/2", "Upgrade: HTTP/2"},
		{"Upgrade", "h2c/s3cr3t", "Upgrade: h2c"},
		{"Sec-Websocket-Extensions", "permessage-deflate; client_max_window_bits", "Sec-WebSocket-Extensions: permessage-deflate"},
		{"Sec-Websocket-Extensions", "s3cr3t; x=1", "Sec-WebSocket-Extensions: a token it does not know, withheld"},
	} {
		resp := &http.Response{Header: http.Header{tc.header: {tc.value}}}
		if got := compressedStream(resp); got != tc.want {
			t.Errorf("compressedStream(%s: %s) = %q, want %q", tc.header, tc.value, got, tc.want)
		}
	}
}

func TestIsCredentialHeader(t *testing.T) {
	for k, want := range map[string]bool{
		"Authorization": true, "X-Api-Key": true, "Api-Key": true, "Xi-Api-Key": true, "X-Goog-Api-Key": true,
		"Private-Token": true, "X-Vault-Token": true, "X-Auth-Token": true, "Dd-Api-Key": true,
		"Ocp-Apim-Subscription-Key": true, "X_apikey": true, "X-Client-Secret": true,
		"Dd-Application-Key": true, "X-Shopify-Access-Token": true, "X-Amz-Security-Token": true,
		"X-Auth-Key": true, "Apikey": true, "x-api-key": true, "X-Api-Secret": true, "X-Auth": true,
		"X-RapidAPI-Key": true, "X-Functions-Key": true, "X-Appwrite-Key": true, "X-Key": true,
		// Headers servers store or repeat, or that carry no credential.
		"Origin": false, "Referer": false, "Cookie": false, "User-Agent": false, "X-Request-Id": false,
		"Accept-Encoding": false, "X-Keyboard-Layout": false, "X-Honeycomb-Team": false,
		"Sec-Websocket-Key": false, "Access-Control-Request-Headers": false,
		"Idempotency-Key": false, "X-Idempotency-Key": false, "idempotency_key": false, "Idempotency-Token": false,
		"Cache-Key": false, "Key": false, "X-Request-Key": false, "X-Csrf-Token": false, "X-Xsrf-Token": false,
		"Next-Page-Token": false, "X-Ms-Continuation-Token": false, "Sec-Fetch-Auth-Token": false,
		"X-Keyset": false, "X-Tokenizer": false, "Www-Authenticate": false,
		// Headers that frame the request or speak to a proxy, however spelled:
		// header stripping knows them by their canonical names only.
		"Proxy-Authorization": false, "Proxy_Authorization": false, "PROXY_AUTHORIZATION": false,
	} {
		if got := isCredentialHeader(k); got != want {
			t.Errorf("isCredentialHeader(%q) = %v, want %v", k, got, want)
		}
	}
}
