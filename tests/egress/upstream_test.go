//go:build linux

package egress_test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The topology's addresses. The netns side of the veth pair is the agentbox
// process's own interface address; the upstream side carries the test
// hosts, and a private and a metadata address that the guard must keep the
// proxy from ever reaching (they answer, so a guard failure would show).
const (
	hostIf   = "abx0" // in the netns child
	upIf     = "abx1" // in the upstream namespace
	hostCIDR = "198.51.100.1/24"
	hostAddr = "198.51.100.1"
	// lateHostAddr is added to the netns side while a Manager lives.
	lateHostAddr = "198.51.100.77"
	// anyIPPrefix is routed to the netns's own loopback (an AnyIP local
	// route); anyIPAddr, in it, is the host's without being on an interface.
	anyIPPrefix = "198.51.100.128/25"
	anyIPAddr   = "198.51.100.200"
	// localSrcPrefix is routed to the netns's loopback with another
	// preferred source (ip route add local ... src hostAddr): the kernel
	// does not pick localSrcAddr as the source of a packet to it.
	localSrcPrefix = "192.0.2.0/24"
	localSrcAddr   = "192.0.2.7"
	// anyIP6Prefix is an IPv6 AnyIP range on the netns's loopback; a
	// service on [::] answers for every address in it.
	anyIP6Prefix = "2001:db8:1::/64"
	anyIP6Addr   = "2001:db8:1::5"

	allowedAddr  = "198.51.100.10" // allowed.test, sub.allowed.test
	otherAddr    = "198.51.100.11" // other.test: never allowed by any test
	deniedAddr   = "198.51.100.12" // denied.test: allowed and denied
	controlAddr  = "198.51.100.99" // the helper's control endpoint
	privateAddr  = "10.0.0.1"
	metadataAddr = "169.254.169.254"

	canaryPort  = 7777 // on allowedAddr: raw TCP, only direct connections would hit it
	controlPort = 9999
)

// upstreamConfig is the upstream namespace's addresses (on upIf) and the
// routes the netns child adds towards them.
var (
	upstreamCIDRs = []string{
		allowedAddr + "/24", otherAddr + "/24", deniedAddr + "/24", controlAddr + "/24",
		privateAddr + "/8", metadataAddr + "/16",
	}
	hostRoutes = []string{"10.0.0.0/8", "169.254.0.0/16"}
	// servedAddrs get an HTTP server on port 80 and an HTTPS one on 443.
	servedAddrs = []string{allowedAddr, otherAddr, deniedAddr, privateAddr, metadataAddr}
)

// topologyAddrs are every address the suite puts on an interface.
func topologyAddrs() []string {
	out := []string{hostAddr}
	for _, c := range upstreamCIDRs {
		out = append(out, netip.MustParsePrefix(c).Addr().String())
	}
	return out
}

// upstreamState is what the helper reports on its control endpoint.
type upstreamState struct {
	// Accepts counts accepted TCP connections by local address (IP:port).
	Accepts map[string]int `json:"accepts"`
	// Events are "hello ADDR sni=NAME" for every TLS ClientHello and
	// "http ADDR host=HOST path=PATH" for every request, in order.
	Events []string `json:"events"`
}

type recorder struct {
	mu sync.Mutex
	st upstreamState
}

func (r *recorder) accept(local string) {
	r.mu.Lock()
	r.st.Accepts[local]++
	r.mu.Unlock()
}

func (r *recorder) event(format string, args ...any) {
	r.mu.Lock()
	r.st.Events = append(r.st.Events, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&r.st)
}

// countingListener counts every connection it accepts.
type countingListener struct {
	net.Listener
	rec *recorder
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.rec.accept(l.Addr().String())
	}
	return c, err
}

// runUpstream is the helper's main: wait for the veth end, configure it,
// serve, report "ready", and exit when stdin closes (the netns child ended).
func runUpstream() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "egress e2e upstream:", err)
		return 1
	}
	in := bufio.NewReader(os.Stdin)
	if line, err := in.ReadString('\n'); err != nil || line != "configure\n" {
		return fail(fmt.Errorf("expected configure, got %q (%v)", line, err))
	}
	var cmds [][]string
	cmds = append(cmds, []string{"link", "set", "lo", "up"})
	for _, c := range upstreamCIDRs {
		cmds = append(cmds, []string{"addr", "add", c, "dev", upIf})
	}
	cmds = append(cmds, []string{"link", "set", upIf, "up"})
	for _, c := range cmds {
		if err := ipCmd(c...); err != nil {
			return fail(err)
		}
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(workDir, leafFileName), filepath.Join(workDir, keyFileName))
	if err != nil {
		return fail(err)
	}
	rec := &recorder{st: upstreamState{Accepts: map[string]int{}}}
	listen := func(addr string) (net.Listener, error) {
		l, err := net.Listen("tcp4", addr)
		if err != nil {
			return nil, err
		}
		return countingListener{l, rec}, nil
	}
	serve := func(l net.Listener, h http.Handler) {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: log.New(io.Discard, "", 0)} // refused handshakes are the point
		go func() { _ = srv.Serve(l) }()
	}
	for _, a := range servedAddrs {
		plain, err := listen(net.JoinHostPort(a, "80"))
		if err != nil {
			return fail(err)
		}
		serve(plain, echoHandler(rec, "http", plain.Addr().String()))
		l, err := listen(net.JoinHostPort(a, "443"))
		if err != nil {
			return fail(err)
		}
		local := l.Addr().String()
		cfg := &tls.Config{
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12,
			GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
				rec.event("hello %s sni=%s", local, hello.ServerName)
				return nil, nil
			},
		}
		serve(tls.NewListener(l, cfg), echoHandler(rec, "https", local))
	}
	canary, err := listen(net.JoinHostPort(allowedAddr, fmt.Sprint(canaryPort)))
	if err != nil {
		return fail(err)
	}
	go func() {
		for {
			c, err := canary.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	ctl, err := net.Listen("tcp4", net.JoinHostPort(controlAddr, fmt.Sprint(controlPort)))
	if err != nil {
		return fail(err)
	}
	serve(ctl, rec)
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, in)
	return 0
}

// echoHandler answers every request with a line naming the server, the
// Host and the path, and records the request.
func echoHandler(rec *recorder, scheme, local string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.event("http %s host=%s path=%s", local, r.Host, r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			// Recorded, never echoed: the client must not see what the
			// proxy injected.
			rec.event("auth %s host=%s value=%s", local, r.Host, a)
		}
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/echo-auth" {
			// As echo services do: the proxy must mask what it injected.
			w.Header().Set("X-Echo", r.Header.Get("Authorization"))
			fmt.Fprintf(w, "you sent %s\n", r.Header.Get("Authorization"))
			return
		}
		if r.URL.Path == "/echo-range" {
			// Honours Range, and names a header after the token.
			a := r.Header.Get("Authorization")
			w.Header().Set("X-E-"+strings.TrimPrefix(a, "Bearer "), "1")
			http.ServeContent(w, r, "", time.Time{}, strings.NewReader("you sent "+a+"\n"))
			return
		}
		fmt.Fprintf(w, "upstream %s %s host=%s path=%s\n", scheme, local, r.Host, r.URL.Path)
	})
}

// ipCmd runs iproute2's ip with args.
func ipCmd(args ...string) error {
	out, err := exec.Command(ipPath(), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %v: %w: %s", args, err, out)
	}
	return nil
}

// ipPath finds ip also when /usr/sbin is not on an unprivileged user's PATH.
func ipPath() string {
	if p, err := exec.LookPath("ip"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "ip"
}
