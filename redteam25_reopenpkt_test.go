//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam25ReopenPacketPipe: the caller hands, as Stdout, the write
// end of a packet-mode pipe (pipe2 with O_DIRECT: each write is one
// packet, each read returns one packet; a flag of the open file
// description, not of the pipe). Before fcb35bb agentbox dup'ed the
// descriptor and its copy's writes kept the caller's packet framing. Now
// reopenWriter opens /proc/self/fd/N anew with O_WRONLY|O_NONBLOCK only:
// the new description lacks O_DIRECT, so the program's separate writes
// ("one", then "two" 300 ms later) reach the reader merged into one
// stream ("onetwo"): a reader that frames messages by packet misparses
// them. (The reopened description drops every other per-description flag
// too.)
//
// Severity: low (output framing changes for a caller relying on packet
// pipes; no escape).
//
// Fix: carry the caller's description flags over (F_GETFL, then set
// O_DIRECT on the reopened one with F_SETFL), or dup where the
// description has flags the reopen would drop.
//
// Fixed: reopenWriter gives the new description the caller's status flags
// (reopenedFlags), or copies the caller's descriptor when it cannot.
func TestRedteam25ReopenPacketPipe(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_DIRECT); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	defer w.Close()
	cmd := exec.Command("/bin/sh", "-c", "printf one; sleep 0.3; printf two")
	cmd.Stdout = w
	pr, err := m.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt25Wait(t, pr, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "one" {
		t.Fatalf("first read %q, want the packet %q", buf[:n], "one")
	}
}
