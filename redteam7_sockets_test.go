//go:build linux

package agentbox_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam7DatagramSocketStdio hands a wrapped or started command a
// host datagram socket (UDP on loopback, a unix datagram socket pair) as
// Stdout, as Stderr only, or as both. The command must see pipes, never
// the socket (which it could connect anywhere the host reaches); the
// control: what it writes reaches the peer.
func TestRedteam7DatagramSocketStdio(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	type pair struct {
		f    *os.File
		read func() string
	}
	udp := func(t *testing.T) pair {
		peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { peer.Close() })
		c, err := net.DialUDP("udp", nil, peer.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		f, err := c.File()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return pair{f, func() string {
			var all []byte
			buf := make([]byte, 4096)
			for {
				peer.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
				n, _, err := peer.ReadFromUDP(buf)
				if err != nil {
					return string(all)
				}
				all = append(all, buf[:n]...)
			}
		}}
	}
	unixgram := func(t *testing.T) pair {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.SetNonblock(fds[1], true); err != nil {
			t.Fatal(err)
		}
		f, peer := os.NewFile(uintptr(fds[0]), "dgram"), os.NewFile(uintptr(fds[1]), "peer")
		t.Cleanup(func() { f.Close(); peer.Close() })
		return pair{f, func() string {
			var all []byte
			buf := make([]byte, 4096)
			for {
				peer.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
				n, err := peer.Read(buf)
				if err != nil {
					return string(all)
				}
				all = append(all, buf[:n]...)
			}
		}}
	}
	const script = `for fd in 0 1 2; do [ -S /proc/self/fd/$fd ] && echo "SOCKET$fd" >&2; done; echo hello-out; echo hello-err >&2`
	for _, kind := range []struct {
		name string
		make func(*testing.T) pair
	}{{"udp", udp}, {"unixgram", unixgram}} {
		for _, where := range []string{"stdout", "stderr", "both"} {
			for _, api := range []string{"Wrap", "Start"} {
				t.Run(kind.name+"/"+where+"/"+api, func(t *testing.T) {
					p := kind.make(t)
					var other strings.Builder
					cmd := exec.Command("/bin/sh", "-c", script)
					switch where {
					case "stdout":
						cmd.Stdout, cmd.Stderr = p.f, &other
					case "stderr":
						cmd.Stdout, cmd.Stderr = &other, p.f
					case "both":
						cmd.Stdout, cmd.Stderr = p.f, p.f
					}
					if api == "Wrap" {
						cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(10*time.Second))
						if err != nil {
							t.Fatal(err)
						}
						err = cmd.Run()
						cleanup()
						if err != nil {
							t.Fatalf("run: %v (other %q)", err, other.String())
						}
					} else {
						pr, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(10*time.Second))
						if err != nil {
							t.Fatal(err)
						}
						if res, err := pr.Wait(); err != nil || res.ExitCode != 0 {
							t.Fatalf("wait: %+v %v", res, err)
						}
					}
					got := p.read() + other.String()
					if strings.Contains(got, "SOCKET") {
						t.Errorf("ESCAPE: the command holds the host's socket: %q", got)
					}
					if !strings.Contains(got, "hello-out") || !strings.Contains(got, "hello-err") {
						t.Errorf("control: the output did not arrive: %q", got)
					}
				})
			}
		}
	}
}
