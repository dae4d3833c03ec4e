//go:build linux

package egress_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/agentbox-dev/agentbox"
)

// h2cPort is where the upstream namespace serves a front end shared by
// allowed.test and other.test that accepts an upgrade to cleartext
// HTTP/2 (h2c) and then routes each stream by its :authority, as a
// reverse proxy in front of several sites does. It is lenient in one way
// some servers are: it does not insist that Connection names
// HTTP2-Settings.
const h2cPort = 8446

const roleH2CClient = "h2c-client"

func init() {
	switch {
	case os.Getenv(envRedteam) == roleH2CClient:
		os.Exit(runH2CClient())
	case os.Getenv(envRole) == roleUpstream:
		go serveH2CFront()
	}
}

func serveH2CFront() {
	l := listenAllowed(h2cPort, "redteam h2c front")
	if l == nil {
		return
	}
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "h2c front routed host=%s proto=%s path=%s\n", r.Host, r.Proto, r.URL.Path)
	})
	// net/http serves HTTP/2 only from the start of a connection; serving
	// it after an h2c upgrade, as this front end must, takes x/net's.
	//lint:ignore SA1019 the h2c upgrade needs ServeConn's UpgradeRequest
	h2 := &http2.Server{}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := r.Header.Get("Http2-Settings")
			if !strings.EqualFold(r.Header.Get("Upgrade"), "h2c") || s == "" {
				site.ServeHTTP(w, r)
				return
			}
			settings, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
			if err != nil {
				http.Error(w, "bad settings", 400)
				return
			}
			_ = settings
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
			_ = brw.Flush()
			//lint:ignore SA1019 see h2 above
			h2.ServeConn(&bufferedConn{Conn: conn, r: brw.Reader}, &http2.ServeConnOpts{Handler: site, UpgradeRequest: r})
		}),
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0),
	}
	_ = srv.Serve(l)
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// runH2CClient runs inside the sandbox: through a CONNECT tunnel to
// allowed.test:h2cPort, an HTTP/1.1 request for allowed.test that asks
// for h2c, then, on the upgraded connection, an HTTP/2 request whose
// :authority is other.test.
func runH2CClient() int {
	c, br, resp, err := tunnelToAllowed(h2cPort)
	if c == nil {
		fmt.Println("error", err)
		return 0
	}
	defer c.Close()
	if err != nil || resp.StatusCode != 200 {
		fmt.Println("proxy", resp, err)
		return 0
	}
	fmt.Fprintf(c, "GET /rt-h2c-first HTTP/1.1\r\nHost: allowed.test:%d\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n", h2cPort)
	resp, err = http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	fmt.Println("upgrade", resp.StatusCode)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(resp.Body)
		fmt.Println("body", strings.TrimSpace(string(b)))
		return 0
	}
	rw := struct {
		io.Reader
		io.Writer
	}{br, c}
	_, _ = io.WriteString(c, http2.ClientPreface)
	fr := http2.NewFramer(rw, rw)
	_ = fr.WriteSettings()
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", "other.test"}, {":path", "/rt-bad-h2c"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			fmt.Println("h2 error", err)
			return 0
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.DataFrame:
			fmt.Printf("h2 stream %d data %s\n", f.StreamID, strings.TrimSpace(string(f.Data())))
			if f.StreamID == 3 && f.StreamEnded() {
				return 0
			}
		case *http2.GoAwayFrame:
			fmt.Println("h2 goaway", f.ErrCode)
			return 0
		case *http2.RSTStreamFrame:
			fmt.Println("h2 rst", f.StreamID, f.ErrCode)
		}
	}
}

// TestNetRedteamH2CUpgrade: plain HTTP in a tunnel is relayed a request
// at a time, each one's Host checked. An upgrade to h2c turns the rest of
// the connection into HTTP/2, whose every stream names its own host in
// :authority, out of the proxy's sight: a front end that routes streams
// by :authority takes the sandbox to other.test.
func TestNetRedteamH2CUpgrade(t *testing.T) {
	inNetns(t)
	pol := netPolicy{allow: []string{fmt.Sprintf("allowed.test:%d", h2cPort)}}
	env := []string{envRedteam + "=" + roleH2CClient}
	var o outcome
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		o = runSandboxed(t, pol, echClientArgv(t, "", ""), agentbox.WithEnv(env...))
		if !strings.Contains(o.res.Stdout, "connection refused") && !strings.Contains(o.res.Stdout, "unreachable") || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("%s", o.res.Stdout)
	// Control: the upgrade request itself, for allowed.test, is answered.
	if !strings.Contains(o.res.Stdout, "upgrade ") {
		t.Fatalf("control: the upgrade request was not answered\n%s", o.dump())
	}
	if strings.Contains(o.res.Stdout, "host=other.test") {
		t.Errorf("ESCAPE: an h2c stream inside a tunnel allowed for allowed.test reached other.test\n%s", o.dump())
	}
}
