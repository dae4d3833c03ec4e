//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"golang.org/x/sys/unix"
)

// rt38RunOnTerminal starts script (python3) with the pty's slave as its
// stdin and stdout, waits for it, and returns its stderr; it fails the test
// unless the script's control line (the command reads its terminal's
// modes with TCGETS) came first and the command exited 0.
func rt38RunOnTerminal(t *testing.T, slave *os.File, script string) string {
	t.Helper()
	m := newManager(t, agentbox.CIConfig())
	control := "import fcntl, os, sys, termios\n" +
		"termios.tcgetattr(0)\n" +
		"sys.stderr.write(\"CONTROL-OK\\n\")\n"
	cmd := exec.Command("python3", "-c", control+script)
	cmd.Stdin, cmd.Stdout = slave, slave
	errf, err := os.CreateTemp(hostDir(t), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	cmd.Stderr = errf
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(errf.Name())
	if !strings.HasPrefix(string(b), "CONTROL-OK\n") || res.ExitCode != 0 {
		t.Fatalf("control: exit %d, stderr %q", res.ExitCode, b)
	}
	return string(b)
}

// TestRedteam38SharedTerminalSigioSignal: a command given the caller's
// terminal as it is (exec without --tty, Start with a terminal's files)
// shares the caller's open file description of it, and fcntl(F_SETSIG) is
// state of that description, which agentbox did not record nor put back
// (sharedFile restored status flags, owner and mode, termios, exclusive
// mode and suspended output). The command sets the signal to SIGKILL; after
// Wait the user's shell and every later program it starts on that terminal
// share the description: one that asks for SIGIO on its input
// (F_SETOWN to itself and O_ASYNC, as interrupt-driven terminal programs
// do) is killed by its first keystroke instead. F_SETOWN survives the run
// as well (in the reduced tier, which has no pid namespace, it names a host
// process). Severity: low (the victim must use O_ASYNC without F_SETSIG;
// nothing is read or gained). Found by red-team round 38; fixed:
// sharedFile records F_GETSIG and F_GETOWN_EX and puts them back.
//
// The attack must fail: after Wait, F_GETSIG on the caller's descriptor is
// what it was, and a later host program using SIGIO on it gets SIGIO. The
// control: the command reads its terminal's modes.
func TestRedteam38SharedTerminalSigioSignal(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	before, err := unix.FcntlInt(slave.Fd(), unix.F_GETSIG, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := rt38RunOnTerminal(t, slave,
		"fcntl.fcntl(0, 10, 9)\n"+ // F_SETSIG, SIGKILL
			"sys.stderr.write(\"SETSIG %d\\n\" % fcntl.fcntl(0, 11))\n")
	after, err := unix.FcntlInt(slave.Fd(), unix.F_GETSIG, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("ESCAPE: the caller's terminal's F_GETSIG is %d after the run (was %d); command said %q", after, before, out)
	}
	// A later host program on the same terminal asks for SIGIO on input.
	victim := exec.Command("python3", "-c", "import fcntl, os, signal, sys, time\n"+
		"signal.signal(signal.SIGIO, lambda s, f: (sys.stderr.write(\"GOT-SIGIO\\n\"), os._exit(0)))\n"+
		"fcntl.fcntl(0, fcntl.F_SETOWN, os.getpid())\n"+
		"fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_ASYNC)\n"+
		"sys.stderr.write(\"READY\\n\")\n"+
		"time.sleep(15)\n"+
		"sys.exit(3)\n")
	victim.Stdin = slave
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	victim.Stderr = pw
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	buf := make([]byte, 64)
	n, _ := pr.Read(buf)
	if !strings.Contains(string(buf[:n]), "READY") {
		t.Fatalf("victim did not start: %q", buf[:n])
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := master.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	werr := victim.Wait()
	rest := make([]byte, 256)
	m, _ := pr.Read(rest)
	pr.Close()
	// Undo for the rest of the test's life.
	_, _ = unix.FcntlInt(slave.Fd(), unix.F_SETFL, 0)
	if werr != nil {
		t.Errorf("ESCAPE: a host program that asked for SIGIO on the caller's terminal after the run ended with %v (stderr %q): the command's F_SETSIG outlived it", werr, rest[:m])
	}
}

// TestRedteam38SharedTerminalFlock: flock(2) and open-file-description
// locks belong to the open file description, which a command given the
// caller's terminal as it is shares with the user's shell: an exclusive
// flock the command takes stays held after the command's whole tree is gone,
// for as long as the user's shell keeps the terminal open, and any other
// opener of the terminal that locks it (flock /dev/tty) waits forever.
// agentbox restored flags, modes and owner but not locks. Severity: low
// (few programs lock a terminal). Found by red-team round 38; fixed:
// sharedFile.restore releases the description's flock and OFD locks
// (through its duplicate, which shares the description) when /proc/locks
// listed none on the terminal before the run.
//
// The attack must fail: after Wait another open of the terminal takes
// LOCK_EX|LOCK_NB. The control: the command reads its terminal's modes.
func TestRedteam38SharedTerminalFlock(t *testing.T) {
	t.Parallel()
	_, slave := ptytest.Open(t)
	path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(slave.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	out := rt38RunOnTerminal(t, slave,
		"fcntl.flock(0, fcntl.LOCK_EX)\n"+
			"sys.stderr.write(\"LOCKED\\n\")\n")
	other, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("ESCAPE: the caller's terminal %s is still locked after the run (%v); command said %q", path, err, out)
	}
}

// TestRedteam38SharedTerminalTermios2: the command changes what the
// older TCSETS that sharedFile restores with might not reach: a custom
// speed through termios2 (TCSETS2 with BOTHER), a c_cc field, suspended
// output (TCOOFF) and a break (TCSBRK). Held in round 38: after Wait the
// terminal's termios2 (TCGETS2, speeds included) is what it was and output
// flows. Kept: the termios2 speeds were not covered before. The control:
// the command reads its terminal's modes.
func TestRedteam38SharedTerminalTermios2(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS2)
	if err != nil {
		t.Skipf("TCGETS2: %v", err)
	}
	out := rt38RunOnTerminal(t, slave, "import struct\n"+
		"b = bytearray(fcntl.ioctl(0, 0x802c542a, bytes(44)))\n"+ // TCGETS2
		"cflag, = struct.unpack_from(\"I\", b, 8)\n"+
		"struct.pack_into(\"I\", b, 8, (cflag & ~0o10017) | 0o10000)\n"+ // BOTHER
		"struct.pack_into(\"II\", b, 36, 12345, 12345)\n"+
		"b[17 + termios.VINTR] = 0x71\n"+
		"fcntl.ioctl(0, 0x402c542b, bytes(b))\n"+ // TCSETS2
		"termios.tcflow(0, termios.TCOOFF)\n"+
		"termios.tcsendbreak(0, 0)\n"+
		"sys.stderr.write(\"SET\\n\")\n")
	after, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS2)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Errorf("ESCAPE: the caller's terminal's termios2 is %+v after the run (was %+v); command said %q", after, before, out)
	}
	done := make(chan error, 1)
	go func() { _, err := slave.Write([]byte("z")); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ESCAPE: output to the caller's terminal is still suspended after the run")
	}
	buf := make([]byte, 16)
	if _, err := master.Read(buf); err != nil {
		t.Fatal(err)
	}
}

// TestSharedTerminalCallerLockKept: the other side of the fix above. A lock
// the caller held through the terminal's description before the run is the
// caller's, and restore leaves it: after Wait another open of the terminal
// still cannot take LOCK_EX|LOCK_NB, and can once the caller unlocks. The
// command takes the same lock (through the same description it converts)
// and reads its terminal's modes (the control).
func TestSharedTerminalCallerLockKept(t *testing.T) {
	t.Parallel()
	_, slave := ptytest.Open(t)
	path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(slave.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(slave.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	rt38RunOnTerminal(t, slave, "fcntl.flock(0, fcntl.LOCK_EX)\n")
	other, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Errorf("another open of %s locked it (%v): the run released the caller's own flock", path, err)
	}
	if err := unix.Flock(int(slave.Fd()), unix.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("control: another open of %s cannot lock it once the caller unlocked: %v", path, err)
	}
}
