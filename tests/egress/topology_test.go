//go:build linux

package egress_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// topology is what the netns child builds before its tests run:
//
//	netns child (the agentbox process's "host")        upstream helper
//	  lo: 127.0.0.1 — local services on :80 :443         lo
//	  abx0: 198.51.100.1/24 — local services on :80 :443  abx1: 198.51.100.10-12, .99 /24,
//	  routes 10/8 and 169.254/16 via abx0 ◄── veth ──►       10.0.0.1/8, 169.254.169.254/16
//
// plus /etc/hosts, bind-mounted in the child's private mount namespace, for
// the CLI (which resolves with the system resolver).
type topology struct {
	helper   *exec.Cmd
	helperIn io.WriteCloser
	done     chan error // the helper's Wait

	local     *localServices
	baseline  upstreamState // after the self-check, before any test
	hostsBind bool
	client    *http.Client // direct, for the control endpoint
}

// topo is the netns child's topology.
var topo *topology

// caFile is the test CA's path, readable inside every sandbox.
func caFile() string { return filepath.Join(workDir, caFileName) }

// runNetns is the re-executed child's main.
func runNetns(m *testing.M) int {
	// The helper's Pdeathsig is bound to the thread that starts it.
	runtime.LockOSThread()
	if err := checkPristine(); err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e: refusing to build the topology:", err)
		return 1
	}
	t, err := setUpTopology()
	if err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e: topology:", err)
		if t != nil {
			_ = t.close()
		}
		return 1
	}
	topo = t
	code := m.Run()
	if err := t.close(); err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e: teardown:", err)
		code = max(code, 1)
	}
	if err := checkNoChildren(); err != nil {
		fmt.Fprintln(os.Stderr, "egress e2e: teardown:", err)
		code = max(code, 1)
	}
	return code
}

// checkNoChildren fails if a process this one started (a sandbox's init, the
// upstream helper, a CLI) is still there once every test and the topology
// have ended.
func checkNoChildren() error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		kids, err := children()
		if err != nil || len(kids) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes left behind: %v", kids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// children lists this process's child processes as "pid (command)".
func children() ([]string, error) {
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, pid := range strings.Fields(string(b)) {
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			out = append(out, pid+" ("+strings.TrimSpace(string(comm))+")")
		}
	}
	return out, nil
}

// checkPristine makes sure this process is in a network namespace of its
// own with nothing but lo, and either in a user namespace of its own (uid 0
// mapped to one id) or root, so that nothing the suite does can reach a
// real network.
func checkPristine() error {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return err
	}
	f := strings.Fields(string(b))
	switch {
	case len(f) == 3 && f[0] == "0" && f[2] == "1":
	case os.Getuid() == 0:
		self, err := os.Readlink("/proc/self/ns/net")
		if err != nil {
			return err
		}
		if host := os.Getenv(envHostNetns); host == "" || self == host {
			return fmt.Errorf("not in a network namespace of the suite's own (%s, the parent's %q)", self, host)
		}
	default:
		return fmt.Errorf("not in the suite's own user namespace (uid_map %q)", b)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		return fmt.Errorf("the network namespace is not empty: %v", ifs)
	}
	return nil
}

func setUpTopology() (*topology, error) {
	if err := ipCmd("link", "set", "lo", "up"); err != nil {
		return nil, err
	}
	if err := writePKI(workDir); err != nil {
		return nil, err
	}
	t := &topology{done: make(chan error, 1), client: &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		Timeout:   5 * time.Second,
	}}
	if err := t.startHelper(); err != nil {
		return t, err
	}
	pid := strconv.Itoa(t.helper.Process.Pid)
	cmds := [][]string{
		{"link", "add", hostIf, "type", "veth", "peer", "name", upIf, "netns", pid},
		{"addr", "add", hostCIDR, "dev", hostIf},
		{"link", "set", hostIf, "up"},
	}
	for _, r := range hostRoutes {
		cmds = append(cmds, []string{"route", "add", r, "dev", hostIf})
	}
	for _, c := range cmds {
		if err := ipCmd(c...); err != nil {
			return t, err
		}
	}
	if err := t.configureHelper(); err != nil {
		return t, err
	}
	var err error
	if t.local, err = startLocalServices(); err != nil {
		return t, err
	}
	if err := t.bindHosts(); err != nil {
		return t, err
	}
	if err := t.selfCheck(); err != nil {
		return t, err
	}
	t.baseline, err = t.state()
	return t, err
}

func (t *topology) startHelper() error {
	env := []string{envRole + "=" + roleUpstream}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envRole+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{"agentbox-egress-e2e-upstream"}
	cmd.Env = env
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	var err error
	if t.helperIn, err = cmd.StdinPipe(); err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("upstream helper in a new network namespace: %w", err)
	}
	t.helper = cmd
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("upstream helper said %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, out)
		t.done <- cmd.Wait()
	}()
	helperReady = ready
	return nil
}

// helperReady delivers the helper's "ready" (or why it is not).
var helperReady chan error

func (t *topology) configureHelper() error {
	if _, err := io.WriteString(t.helperIn, "configure\n"); err != nil {
		return err
	}
	select {
	case err := <-helperReady:
		if err != nil {
			return fmt.Errorf("upstream helper: %w", err)
		}
		return nil
	case <-time.After(15 * time.Second):
		return errors.New("upstream helper not ready after 15s")
	}
}

// bindHosts mounts a hosts file with the test names over /etc/hosts, in
// this process's private mount namespace only.
func (t *topology) bindHosts() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mount namespace private: %w", err)
	}
	p := filepath.Join(workDir, "hosts")
	var b strings.Builder
	for _, name := range sortedNames() {
		for _, a := range testNames[name] {
			fmt.Fprintf(&b, "%s %s\n", a, name)
		}
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := syscall.Mount(p, "/etc/hosts", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting the test hosts file: %w", err)
	}
	t.hostsBind = true
	return nil
}

// selfCheck proves the topology: every upstream server and every local
// service answers a direct connection from here, so the tests' "never
// reached" counts mean something.
func (t *topology) selfCheck() error {
	deadline := time.Now().Add(10 * time.Second)
	var targets []string
	for _, a := range servedAddrs {
		targets = append(targets, net.JoinHostPort(a, "80"), net.JoinHostPort(a, "443"))
	}
	targets = append(targets, net.JoinHostPort(allowedAddr, strconv.Itoa(canaryPort)))
	targets = append(targets, t.local.addrs()...)
	for _, a := range targets {
		for {
			c, err := net.DialTimeout("tcp", a, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("self-check: %s does not answer: %w", a, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The helper counts in its accept loops, a moment after the dial.
	upstream := targets[:len(targets)-len(t.local.addrs())]
	for {
		st, err := t.state()
		if err != nil {
			return err
		}
		missing := ""
		for _, a := range upstream {
			if st.Accepts[a] == 0 {
				missing = a
			}
		}
		for _, a := range t.local.addrs() {
			if t.local.count(a) == 0 {
				missing = a
			}
		}
		if missing == "" {
			t.local.setBaseline()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("self-check: %s did not count the connection", missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// state fetches the helper's counters and events.
func (t *topology) state() (upstreamState, error) {
	var st upstreamState
	resp, err := t.client.Get("http://" + net.JoinHostPort(controlAddr, strconv.Itoa(controlPort)) + "/")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}

// close stops the helper (its namespace, and with it the veth pair, goes
// away), removes the hosts mount, and checks that nothing is left.
func (t *topology) close() error {
	var errs []error
	if t.local != nil {
		t.local.close()
	}
	if t.hostsBind {
		if err := syscall.Unmount("/etc/hosts", 0); err != nil {
			errs = append(errs, fmt.Errorf("unmounting the hosts file: %w", err))
		}
	}
	if t.helper != nil {
		_ = t.helperIn.Close()
		select {
		case <-t.done:
		case <-time.After(5 * time.Second):
			_ = t.helper.Process.Kill()
			<-t.done
			errs = append(errs, errors.New("the upstream helper did not exit when asked"))
		}
	}
	// Destroying the helper's namespace destroys the veth pair; the kernel
	// does it asynchronously.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := net.InterfaceByName(hostIf); err != nil {
			break
		}
		if time.Now().After(deadline) {
			errs = append(errs, fmt.Errorf("%s still exists after the upstream namespace ended", hostIf))
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.Join(errs...)
}

// localServices are listeners of the agentbox process's own namespace (the
// "host" of the sandboxes): on its loopback and on its veth address. No
// sandbox may reach them, through the proxy or around it.
type localServices struct {
	ls       []net.Listener
	hits     sync.Map // local address -> *atomic.Int64
	baseline map[string]int64
	wg       sync.WaitGroup
}

func startLocalServices() (*localServices, error) {
	s := &localServices{}
	addrs := []string{"127.0.0.1:80", "127.0.0.1:443", hostAddr + ":80", hostAddr + ":443"}
	for _, a := range addrs {
		l, err := net.Listen("tcp4", a)
		if err != nil {
			s.close()
			return nil, err
		}
		s.add(l)
	}
	// IPv6 loopback, where the namespace has it.
	if l, err := net.Listen("tcp6", "[::1]:80"); err == nil {
		s.add(l)
	}
	return s, nil
}

func (s *localServices) add(l net.Listener) {
	s.ls = append(s.ls, l)
	n := new(atomic.Int64)
	s.hits.Store(l.Addr().String(), n)
	s.wg.Go(func() { countAccepts(l, n) })
}

// countAccepts accepts connections on l until it closes, counting them in
// n and closing each at once.
func countAccepts(l net.Listener, n *atomic.Int64) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		_ = c.Close()
	}
}

// listenCounting listens on the TCP4 address addr for the length of the
// test and returns the count of connections it accepts.
func listenCounting(t *testing.T, addr string) *atomic.Int64 {
	t.Helper()
	return listenCountingOn(t, "tcp4", addr)
}

// listenCountingOn is listenCounting on network ("tcp4" or "tcp6"). An
// IPv6 listener binds with IP_FREEBIND: unlike IPv4, IPv6 does not let a
// socket bind an address that only a local route (AnyIP) makes the host's.
func listenCountingOn(t *testing.T, network, addr string) *atomic.Int64 {
	t.Helper()
	var lc net.ListenConfig
	if network == "tcp6" {
		lc.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_IP, syscall.IP_FREEBIND, 1)
			}); err != nil {
				return err
			}
			return serr
		}
	}
	l, err := lc.Listen(context.Background(), network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	n := new(atomic.Int64)
	go countAccepts(l, n)
	return n
}

func (s *localServices) addrs() []string {
	var out []string
	for _, l := range s.ls {
		out = append(out, l.Addr().String())
	}
	return out
}

// count is the number of connections addr accepted.
func (s *localServices) count(addr string) int64 {
	if v, ok := s.hits.Load(addr); ok {
		return v.(*atomic.Int64).Load()
	}
	return -1
}

// setBaseline records the counts after the self-check.
func (s *localServices) setBaseline() {
	s.baseline = map[string]int64{}
	for _, a := range s.addrs() {
		s.baseline[a] = s.count(a)
	}
}

// reached is how many connections addr accepted since the self-check, or
// -1 if addr is not a local service.
func (s *localServices) reached(addr string) int64 {
	n := s.count(addr)
	if n < 0 {
		return -1
	}
	return n - s.baseline[addr]
}

func (s *localServices) close() {
	for _, l := range s.ls {
		_ = l.Close()
	}
	s.wg.Wait()
}

// expectUnreached fails t if any of addrs (local services or upstream
// servers, "IP:port") accepted a connection beyond the self-check's.
func expectUnreached(t *testing.T, addrs ...string) {
	t.Helper()
	time.Sleep(20 * time.Millisecond) // let accept loops count
	var st upstreamState
	fetched := false
	for _, a := range addrs {
		if n := topo.local.reached(a); n >= 0 {
			if n != 0 {
				t.Errorf("ESCAPE: the local service %s was reached (%d connections)", a, n)
			}
			continue
		}
		if !fetched {
			var err error
			if st, err = topo.state(); err != nil {
				t.Fatalf("upstream state: %v", err)
			}
			fetched = true
		}
		if got, base := st.Accepts[a], topo.baseline.Accepts[a]; got != base {
			t.Errorf("ESCAPE: %s was reached (%d connections)", a, got-base)
		}
	}
}

// upstreamEvents returns the helper's events that contain substr.
func upstreamEvents(t *testing.T, substr string) []string {
	t.Helper()
	st, err := topo.state()
	if err != nil {
		t.Fatalf("upstream state: %v", err)
	}
	var out []string
	for _, e := range st.Events {
		if strings.Contains(e, substr) {
			out = append(out, e)
		}
	}
	return out
}

// ctxT returns a context bounded by the test's deadline, or by d.
func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
