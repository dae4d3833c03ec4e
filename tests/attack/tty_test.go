//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"golang.org/x/sys/unix"
)

// TestTIOCSTI gives the sandbox a terminal (one no other process controls,
// so the kernel itself would let the sandbox make it its controlling
// terminal and push input into it) and has it try to inject a command line
// into the terminal's input with TIOCSTI, also with the request number's
// upper bits set, and to make it its controlling terminal with its group in
// the foreground (the caller's ^C and ^Z would go to the sandbox). The
// control writes to the terminal.
func TestTIOCSTI(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	var mu sync.Mutex
	var seen strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				mu.Lock()
				seen.Write(buf[:n])
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	ps := []probe{
		control("tty_write", "ttywrite:0", ""),
		attack("take_terminal", "ttyctty:0", "EPERM"),
		attack("tiocsti", "tiocsti:0"),
		attack("tiocsti_high_bits", "tiocsti:0|hi"),
	}
	run := startProbes(t, ciMgr, ps, slave, agentbox.WithTimeout(60*time.Second))
	run.check(t, ps)

	time.Sleep(50 * time.Millisecond) // the reader drains the master
	queued, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	if queued != 0 {
		buf := make([]byte, queued)
		n, _ := unix.Read(int(slave.Fd()), buf)
		t.Errorf("ESCAPE: %d bytes were injected into the terminal's input: %q", queued, buf[:n])
	}
	mu.Lock()
	echoed := seen.String()
	mu.Unlock()
	if strings.Contains(echoed, "AGENTBOX_TIOCSTI_INJECTED") {
		t.Errorf("ESCAPE: the injected input was echoed by the terminal: %q", echoed)
	}
	if !strings.Contains(echoed, "AGENTBOX_TTY_CONTROL") {
		t.Errorf("control: the sandbox's write to the terminal did not arrive (saw %q)", echoed)
	}
}

// TestLineDiscipline tries to change the line discipline of the terminal
// the sandbox was handed (N_NULL swallows whatever the user's programs
// write to it afterwards) and of pseudo-terminals the sandbox makes itself
// (any number other than the built-in ones makes the kernel load that
// discipline's module: n_hdlc and n_gsm have had privilege escalations).
// The control: a pseudo-terminal of the sandbox's own carries a line. It
// also tries to take every pty the machine has for sandboxes and
// containers.
func TestLineDiscipline(t *testing.T) {
	t.Parallel()
	_, slave := ptytest.Open(t)
	ps := []probe{
		control("pty_round_trip", "ptyroundtrip", "pty-line"),
		attack("ldisc_of_given_terminal", "setldisc:0|27", "EPERM"),
		attack("ldisc_of_own_pty", "ptyldisc:27", "EPERM"),
		attack("ldisc_module_load", "ptyldisc:13", "EPERM"), // N_HDLC
		// The machine's pool of ptys for sandboxes and containers is
		// shared; a sandbox has 256 of them.
		attack("pty_exhaustion", "ptyflood:1000", "ENOSPC"),
		control("pty_after_flood", "ptyroundtrip", "pty-line"),
	}
	run := startProbes(t, ciMgr, ps, slave, agentbox.WithTimeout(60*time.Second))
	run.check(t, ps)
	if d, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCGETD); err != nil || d != 0 {
		t.Errorf("ESCAPE: the terminal's line discipline is %d (%v), want N_TTY", d, err)
	}
}

// TestTerminalLeftAsFound has a sandboxed program do what outlives it on
// a terminal it shares with the user: raw mode without echo, a
// non-blocking file description (the user's shell then exits on its next
// read), exclusive mode (later opens fail) and suspended output. The
// program may do all of it while it runs (the controls), and once it has
// ended the terminal must be as it was before.
func TestTerminalLeftAsFound(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	fd := int(slave.Fd())
	before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	flagsBefore, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	ps := []probe{
		control("raw_mode", "ttyraw:0", "raw"),
		control("nonblocking", "nonblock:0", "nonblocking"),
		control("exclusive", "ttyexcl:0", "exclusive"),
		control("output_stopped", "ttystop:0", "stopped"),
	}
	run := startProbes(t, ciMgr, ps, slave, agentbox.WithTimeout(60*time.Second))
	run.check(t, ps)

	after, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag || after.Cc != before.Cc {
		t.Errorf("ESCAPE: the terminal's modes outlived the sandbox: lflag %#x, was %#x", after.Lflag, before.Lflag)
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl != flagsBefore {
		t.Errorf("ESCAPE: the file status flags outlived the sandbox: %#o, were %#o (%v)", fl, flagsBefore, err)
	}
	if excl, err := unix.IoctlGetInt(fd, unix.TIOCGEXCL); err != nil || excl != 0 {
		t.Errorf("ESCAPE: the terminal stayed in exclusive mode (%d, %v)", excl, err)
	}
	// Output flows: a line written to the terminal reaches its master.
	go func() { _, _ = slave.Write([]byte("flowing\n")) }()
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := master.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, "flowing") {
			t.Errorf("terminal output after the run: %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Error("ESCAPE: the terminal's output stayed suspended after the sandbox ended")
	}
}

// TestOwnTerminal runs the attacker on a terminal of the sandbox's own
// (WithTerminal). The controls: it is the program's controlling terminal
// with the program in the foreground, it reopens by name (as /dev/stdout
// does; a sandbox of a root caller cannot reopen the caller's terminal),
// and it carries what the user types in and what the program writes out.
// Injecting input and changing its line discipline stay refused.
func TestOwnTerminal(t *testing.T) {
	t.Parallel()
	ps := []probe{
		control("terminal", "ttyinfo:0", "/dev/pts/0 controlling terminal, foreground"),
		control("reopen_by_name", "ttyreopen:0", "/dev/pts/0"),
		control("input", "ttyreadline:0", "typed-by-the-user"),
		attack("tiocsti_own_terminal", "tiocsti:0", "EPERM"),
		attack("ldisc_own_terminal", "setldisc:0|27", "EPERM"),
	}
	cmd := &exec.Cmd{Path: attackerBin, Args: append([]string{attackerBin}, probeArgs(ps)...)}
	p, err := ciMgr.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"), agentbox.WithTerminal(), agentbox.WithTimeout(60*time.Second))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Kill(); _, _ = p.Wait() })
	master := p.Terminal()
	if master == nil {
		t.Fatal("no terminal")
	}
	defer master.Close()
	if p.Terminal() != nil {
		t.Error("Terminal handed out its master twice")
	}
	// Typed ahead: the terminal keeps the line until the probe reads it.
	if _, err := master.Write([]byte("typed-by-the-user\n")); err != nil {
		t.Fatal(err)
	}
	run := &running{p: p, lines: make(chan string, 256), all: &strings.Builder{}}
	go func() {
		defer close(run.lines)
		sc := bufio.NewScanner(master)
		for sc.Scan() { // until EIO: nothing in the sandbox holds the terminal
			run.lines <- strings.TrimRight(sc.Text(), "\r")
		}
	}()
	run.check(t, ps)
	if !strings.Contains(run.all.String(), "AGENTBOX_TTY_REOPENED") {
		t.Error("control: the line written to the reopened terminal did not arrive")
	}
	if _, err := ciMgr.ExecArgs(context.Background(), "true", nil, agentbox.WithTerminal()); !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Errorf("ExecArgs with WithTerminal: %v, want ErrConfigInvalid", err)
	}
}

// TestHostIdentityAndSysctls tries to change the host's name and global
// kernel settings: sethostname, /proc/sys writes (writing back the current
// value, so that a failure of the sandbox would not change the machine),
// sysrq, and reads of the kernel's memory and key lists.
func TestHostIdentityAndSysctls(t *testing.T) {
	t.Parallel()
	hostBefore, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ps := []probe{
		control("own_hostname", "hostname", "agentbox"),
		control("read_sysctl", "read:/proc/sys/kernel/ostype", "Linux"),
		attack("sethostname", "sys:sethostname"),
		attack("setdomainname", "sys:setdomainname"),
		attack("proc_sys_hostname", "put:/proc/sys/kernel/hostname|\"agentbox-pwned\\n\""),
		attack("proc_sys_domainname", "put:/proc/sys/kernel/domainname|\"agentbox-pwned\\n\""),
	}
	// Kernel interfaces, attacked where the host has them.
	for label, spec := range map[string]string{
		"sysrq_trigger": "openw:/proc/sysrq-trigger", "kcore": "open:/proc/kcore", "kallsyms": "read:/proc/kallsyms",
		"proc_keys": "read:/proc/keys", "dev_mem": "open:/dev/mem", "dev_kmsg": "open:/dev/kmsg",
		"sys_write": "openw:/sys/kernel/mm/transparent_hugepage/enabled",
	} {
		_, path, _ := strings.Cut(spec, ":")
		if _, err := os.Stat(path); err == nil {
			ps = append(ps, attack(label, spec))
		}
	}
	// Global knobs get their current value written back: were the write
	// allowed, the machine would still be unchanged.
	for _, knob := range []string{"kernel/core_pattern", "vm/swappiness", "kernel/pid_max", "net/ipv4/ip_forward"} {
		p := "/proc/sys/" + knob
		if b, err := os.ReadFile(p); err == nil {
			ps = append(ps, attack("sysctl_"+knob, "put:"+p+"|"+strconv.Quote(string(b))))
		}
	}
	ps = append(ps, attack("sysctl_vm/drop_caches", "openw:/proc/sys/vm/drop_caches"))
	runProbes(t, ciMgr, ps)
	if after, _ := os.Hostname(); after != hostBefore {
		t.Errorf("ESCAPE: the host's name changed from %q to %q", hostBefore, after)
	}
}

// TestOwnPtyControllingTerminal: a sandbox on pipes makes a pseudo-terminal
// of its own its controlling terminal, as forkpty's child does (script,
// tmux, expect, node-pty): TIOCSCTTY is refused only to a program handed
// the caller's terminal (TestTIOCSTI).
func TestOwnPtyControllingTerminal(t *testing.T) {
	t.Parallel()
	runProbes(t, ciMgr, []probe{control("own_pty_ctty", "ptyctty", "controlling terminal")})
}
