package egress

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRouteClassKernel asks the real routing table about addresses whose
// route type every Linux host agrees on.
func TestRouteClassKernel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr string
		want string
	}{
		{"127.0.0.1", classHostAddress},       // a local route on lo
		{"127.255.255.254", classHostAddress}, // the whole of 127/8 is local
	}
	if _, err := os.Stat("/proc/net/if_inet6"); err == nil {
		cases = append(cases, struct{ addr, want string }{"::1", classHostAddress})
	}
	for _, c := range cases {
		got, err := routeClass(netip.MustParseAddr(c.addr))
		if err != nil || got != c.want {
			t.Errorf("routeClass(%s) = %q, %v; want %q", c.addr, got, err, c.want)
		}
	}
}

// TestGuardFailsClosedOutOfDescriptors: with no file descriptor left for
// the routing question, the guard refuses a documentation address it
// would otherwise let through (it used to call it "not local").
func TestGuardFailsClosedOutOfDescriptors(t *testing.T) {
	// Not parallel: it lowers the process's descriptor limit.
	g := NewGuard(WithHostAddrs(func() ([]netip.Addr, error) { return nil, nil }))
	doc := netip.MustParseAddr("203.0.113.9")
	if rule, blocked := g.Check(doc); blocked {
		t.Skipf("%s is refused here anyway (%s)", doc, rule)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// The kernel hands out the lowest free descriptor: a limit at that
	// number leaves none.
	free, err := syscall.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Close(free)
	low := old
	low.Cur = uint64(free)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	rule, detail, blocked := g.check(doc)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if !blocked || rule != "guard:"+classRouteCheck || !strings.Contains(detail, "too many open files") {
		t.Fatalf("out of descriptors: rule %q detail %q blocked %v; want guard:%s", rule, detail, blocked, classRouteCheck)
	}
}

// TestParseRouteReply reads the kernel's possible answers.
func TestParseRouteReply(t *testing.T) {
	t.Parallel()
	msg := func(typ uint16, seq uint32, data []byte) []byte {
		b := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(data)+4)
		b = append(b, data...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		binary.NativeEndian.PutUint32(b[0:4], uint32(len(b)))
		binary.NativeEndian.PutUint16(b[4:6], typ)
		binary.NativeEndian.PutUint32(b[8:12], seq)
		return b
	}
	errno := func(e syscall.Errno) []byte {
		b := make([]byte, 4+unix.SizeofNlMsghdr)
		binary.NativeEndian.PutUint32(b, uint32(-int32(e)))
		return b
	}
	route := func(typ uint8) []byte {
		b := make([]byte, unix.SizeofRtMsg)
		b[7] = typ // rtm_type
		return b
	}
	cases := []struct {
		name    string
		reply   []byte
		typ     uint8
		done    bool
		wantErr error
	}{
		{"local route", msg(unix.RTM_NEWROUTE, 1, route(unix.RTN_LOCAL)), unix.RTN_LOCAL, true, nil},
		{"unicast route", msg(unix.RTM_NEWROUTE, 1, route(unix.RTN_UNICAST)), unix.RTN_UNICAST, true, nil},
		{"no route", msg(unix.NLMSG_ERROR, 1, errno(unix.ENETUNREACH)), 0, true, unix.ENETUNREACH},
		{"blackhole", msg(unix.NLMSG_ERROR, 1, errno(unix.EINVAL)), 0, true, unix.EINVAL},
		{"another request's answer", msg(unix.RTM_NEWROUTE, 7, route(unix.RTN_LOCAL)), 0, false, nil},
		{"short route", msg(unix.RTM_NEWROUTE, 1, []byte{1, 2}), 0, true, errAny},
		{"truncated", []byte{1, 2, 3}, 0, true, errAny},
		{"empty", nil, 0, true, errAny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ, done, err := parseRouteReply(c.reply, 1)
			switch {
			case c.wantErr == errAny && err == nil,
				c.wantErr != errAny && !errors.Is(err, c.wantErr),
				c.wantErr == nil && err != nil:
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			if typ != c.typ || done != c.done {
				t.Fatalf("got type %d done %v, want %d %v", typ, done, c.typ, c.done)
			}
		})
	}
}

// errAny stands for any error in TestParseRouteReply.
var errAny = errors.New("any error")
