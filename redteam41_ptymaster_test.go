//go:build linux

package agentbox_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"golang.org/x/sys/unix"
)

// TestRedteam41PtyMasterPacketMode: a pseudo-terminal's master is a
// character device, so one the caller gives as a standard stream (a
// harness that drives a program through a pty, expect-style, handing the
// master to a helper) goes to the program as it is (streamKind). The
// command turns packet mode on (ioctl TIOCPKT), state of the pty pair that
// outlasts it. Found by red-team round 41 (low): every later read of the
// harness from its master got a status byte before the data ("\x00z"
// for "z"). Fixed: sharedFile records a master's packet mode and slave
// lock and puts them back (restoreMaster).
//
// The attack must fail: after Wait, TIOCGPKT on the caller's master is 0
// and bytes the slave writes come back unchanged. The control: the
// command reads the terminal's modes through the master.
func TestRedteam41PtyMasterPacketMode(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	out := rt38RunOnTerminal(t, master,
		"import struct\n"+
			"fcntl.ioctl(0, 0x5420, struct.pack(\"i\", 1))\n"+ // TIOCPKT on
			"sys.stderr.write(\"PKT %d\\n\" % struct.unpack(\"i\", fcntl.ioctl(0, 0x80045438, bytes(4)))[0])\n") // TIOCGPKT
	pkt, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPKT)
	if err != nil {
		t.Fatal(err)
	}
	if pkt != 0 {
		t.Errorf("the caller's pty master is in packet mode after the run (TIOCGPKT %d); command said %q", pkt, out)
	}
	// The user's next program on the slave writes; the harness reads.
	if _, err := slave.Write([]byte("z")); err != nil {
		t.Fatal(err)
	}
	master.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 16)
	n, err := master.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if string(buf[:n]) != "z" {
		t.Errorf("the harness read %q from its master after the run, not %q", buf[:n], "z")
	}
}

// TestRedteam41PtyMasterSlaveLock: as above, the command locks the slave
// through the caller's master (TIOCSPTLCK 1, what unlockpt undoes). Found
// by red-team round 41 (low): the lock outlasted the command, and every
// later open of /dev/pts/N (a harness opening it again, a program that
// reopens its terminal by name) failed with EIO. Fixed with the packet
// mode (restoreMaster).
//
// The attack must fail: after Wait, the slave opens. The control: the
// command reads the terminal's modes through the master.
func TestRedteam41PtyMasterSlaveLock(t *testing.T) {
	t.Parallel()
	master, _ := ptytest.Open(t)
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	out := rt38RunOnTerminal(t, master,
		"import struct\n"+
			"fcntl.ioctl(0, 0x40045431, struct.pack(\"i\", 1))\n"+ // TIOCSPTLCK
			"sys.stderr.write(\"LOCKED\\n\")\n")
	f, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Errorf("the caller's pty slave /dev/pts/%d cannot be opened after the run: %v; command said %q", n, err, out)
		return
	}
	f.Close()
}

// TestRedteam41PtyMasterPeerExclusive: through the caller's pty master the
// command tries to open the slave anew (ioctl TIOCGPTPEER: the host's
// /dev/pts is out of reach by name) and put it in exclusive mode
// (TIOCEXCL) through that descriptor of its own, which sharedFile would not
// see (it restores the master's). Held in round 41 (kept: covered nowhere
// else): the open is refused (EACCES), as root and unprivileged.
//
// The attack must fail: after Wait, the slave opens as an ordinary user
// would (TIOCGEXCL on the slave is 0). The control: the command reads the
// terminal's modes through the master.
func TestRedteam41PtyMasterPeerExclusive(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	out := rt38RunOnTerminal(t, master,
		"try:\n"+
			"    p = fcntl.ioctl(0, 0x5441, os.O_RDWR | os.O_NOCTTY)\n"+ // TIOCGPTPEER
			"    fcntl.ioctl(p, termios.TIOCEXCL)\n"+
			"    sys.stderr.write(\"EXCL\\n\")\n"+
			"except OSError as e:\n"+
			"    sys.stderr.write(\"REFUSED %s\\n\" % e)\n")
	excl, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCGEXCL)
	if err != nil {
		t.Fatal(err)
	}
	if excl != 0 {
		t.Errorf("the caller's pty slave is in exclusive mode after the run (later opens by ordinary users fail with EBUSY); command said %q", out)
	} else {
		t.Logf("command said %q", out)
	}
}

// TestRedteam41PtyMasterPeerChmod: as above, the command tries to open the
// slave through the caller's master (TIOCGPTPEER) and, where it runs as
// the slave's owner, make it world-writable (fchmod 0666) through that
// descriptor; sharedFile restores the master's permissions, not the
// slave's. Held in round 41 (kept): the open is refused.
//
// The attack must fail: after Wait, /dev/pts/N has the mode it had. The
// control: the command reads the terminal's modes through the master.
func TestRedteam41PtyMasterPeerChmod(t *testing.T) {
	t.Parallel()
	master, _ := ptytest.Open(t)
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path := "/dev/pts/" + strconv.Itoa(n)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	out := rt38RunOnTerminal(t, master,
		"try:\n"+
			"    p = fcntl.ioctl(0, 0x5441, os.O_RDWR | os.O_NOCTTY)\n"+ // TIOCGPTPEER
			"    os.fchmod(p, 0o666)\n"+
			"    sys.stderr.write(\"CHMOD\\n\")\n"+
			"except OSError as e:\n"+
			"    sys.stderr.write(\"REFUSED %s\\n\" % e)\n")
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() {
		t.Errorf("the caller's pty slave %s is %v after the run (was %v); command said %q", path, after.Mode(), before.Mode(), out)
	} else {
		t.Logf("command said %q", out)
	}
}
