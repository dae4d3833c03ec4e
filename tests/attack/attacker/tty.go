//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Terminal probes: what a program can do to a terminal it is handed, and
// to pseudo-terminals it makes itself.
func init() {
	register(map[string]probeFunc{
		"setldisc":     probeSetLdisc,
		"ptyldisc":     probePtyLdisc,
		"ptyroundtrip": probePtyRoundTrip,
		"ttyraw":       probeTTYRaw,
		"nonblock":     probeNonblock,
		"ttyexcl":      probeTTYExcl,
		"ttystop":      probeTTYStop,
		"ttyinfo":      probeTTYInfo,
		"ttyreopen":    probeTTYReopen,
		"ttyreadline":  probeTTYReadLine,
		"ptyflood":     probePtyFlood,
		"ttyctty":      probeTTYCtty,
		"ptyctty":      probePtyCtty,
	})
}

// probePtyFlood: "N" opens N pseudo-terminals at once (their masters),
// then closes them. It fails with the error of the first one refused.
func probePtyFlood(arg string) (string, error) {
	n, err := strconv.Atoi(arg)
	if err != nil {
		return "", fmt.Errorf("bad count %q", arg)
	}
	var fds []int
	defer func() { closeFDs(fds) }()
	for range n {
		fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Sprintf("opened %d", len(fds)), err
		}
		fds = append(fds, fd)
	}
	return fmt.Sprintf("opened %d", len(fds)), nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// probeTTYInfo: "FD" reports the terminal on FD by name, and whether it is
// the controlling terminal with the program in its foreground.
func probeTTYInfo(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	name, err := os.Readlink("/proc/self/fd/" + arg)
	if err != nil {
		return "", err
	}
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return name + " not a terminal", err
	}
	ctty := "no controlling terminal"
	if t, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		t.Close()
		ctty = "controlling terminal"
		if fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && fg == unix.Getpgrp() {
			ctty += ", foreground"
		}
	}
	return name + " " + ctty, nil
}

// probeTTYReopen: "FD" opens the terminal on FD again by its name, as
// programs do with /dev/stdout, and writes a line to it.
func probeTTYReopen(arg string) (string, error) {
	name, err := os.Readlink("/proc/self/fd/" + arg)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return name, err
	}
	defer f.Close()
	_, err = f.WriteString("AGENTBOX_TTY_REOPENED\n")
	return name, err
}

// probeTTYReadLine: "FD" reads one line from the terminal on FD.
func probeTTYReadLine(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 256)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(buf[:n])), nil
}

// fdArg parses a descriptor number.
func fdArg(s string) (int, error) {
	fd, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("bad descriptor %q", s)
	}
	return fd, nil
}

// probeSetLdisc: "FD|DISC" sets the line discipline of the terminal on FD
// to DISC (27 is N_NULL, which swallows everything written to the
// terminal; other numbers make the kernel load a module for them). On
// success it puts N_TTY back, so that a failing sandbox leaves the
// terminal usable.
func probeSetLdisc(arg string) (string, error) {
	fdStr, discStr, _ := strings.Cut(arg, "|")
	fd, err := fdArg(fdStr)
	if err != nil {
		return "", err
	}
	disc, err := strconv.Atoi(discStr)
	if err != nil {
		return "", fmt.Errorf("bad line discipline %q", discStr)
	}
	return setLdisc(fd, disc)
}

func setLdisc(fd, disc int) (string, error) {
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSETD, disc); err != nil {
		return "", err
	}
	now, _ := unix.IoctlGetInt(fd, unix.TIOCGETD)
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSETD, 0)
	return fmt.Sprintf("line discipline was %d", now), nil
}

// openPty makes a pseudo-terminal in the sandbox's own devpts.
func openPty() (master, slave int, err error) {
	master, err = unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	if err = unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err == nil {
		var n int
		if n, err = unix.IoctlGetInt(master, unix.TIOCGPTN); err == nil {
			slave, err = unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
			if err == nil {
				return master, slave, nil
			}
		}
	}
	unix.Close(master)
	return -1, -1, err
}

// probePtyLdisc: "DISC" sets the line discipline of a pseudo-terminal the
// program made itself.
func probePtyLdisc(arg string) (string, error) {
	disc, err := strconv.Atoi(arg)
	if err != nil {
		return "", fmt.Errorf("bad line discipline %q", arg)
	}
	m, s, err := openPty()
	if err != nil {
		return "no pty", err
	}
	defer unix.Close(m)
	defer unix.Close(s)
	return setLdisc(s, disc)
}

// probePtyRoundTrip is the control: a pseudo-terminal of the sandbox's
// own carries a line from its master to its slave (tools such as script,
// expect and tmux need this).
func probePtyRoundTrip(string) (string, error) {
	m, s, err := openPty()
	if err != nil {
		return "no pty", err
	}
	defer unix.Close(m)
	defer unix.Close(s)
	if _, err := unix.Write(m, []byte("pty-line\n")); err != nil {
		return "", err
	}
	buf := make([]byte, 64)
	n, err := unix.Read(s, buf)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(buf[:n])), nil
}

// probeTTYRaw: "FD" puts the terminal on FD in raw mode without echo, as
// an editor does, and reports the flags it reads back.
func probeTTYRaw(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	t.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return "", err
	}
	if t, err = unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return "", err
	}
	if t.Lflag&(unix.ECHO|unix.ICANON) != 0 {
		return "still cooked", errNotObtained
	}
	return "raw", nil
}

// probeNonblock: "FD" sets O_NONBLOCK on FD's open file description, which
// a terminal shares with the shell that started agentbox (node does this).
func probeNonblock(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return "", err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
		return "", err
	}
	return "nonblocking", nil
}

// probeTTYExcl: "FD" puts the terminal on FD in exclusive mode, where
// every later open of it by an ordinary user fails with EBUSY.
func probeTTYExcl(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	if err := unix.IoctlSetInt(fd, unix.TIOCEXCL, 0); err != nil {
		return "", err
	}
	return "exclusive", nil
}

// probeTTYStop: "FD" suspends the terminal's output (tcflow TCOOFF): the
// user sees nothing more until output is resumed.
func probeTTYStop(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	if err := unix.IoctlSetInt(fd, unix.TCXONC, unix.TCOOFF); err != nil {
		return "", err
	}
	return "stopped", nil
}

// probeTTYCtty: "FD" makes the terminal on FD the program's controlling
// terminal (TIOCSCTTY: the program leads a session without one) and its
// process group that terminal's foreground group (TIOCSPGRP): on the
// caller's terminal, the caller's ^C and ^Z would then go to the program.
func probeTTYCtty(arg string) (string, error) {
	fd, err := fdArg(arg)
	if err != nil {
		return "", err
	}
	if err := unix.IoctlSetInt(fd, unix.TIOCSCTTY, 0); err != nil {
		return "TIOCSCTTY", err
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, unix.Getpgrp()); err != nil {
		return "controlling terminal; TIOCSPGRP", err
	}
	return "controlling terminal, foreground", nil
}

// probePtyCtty makes a pseudo-terminal of the program's own its
// controlling terminal, as forkpty's child (script, tmux, expect) does. It
// keeps the master open: closing it would hang the terminal up and send
// the program, its session's leader, SIGHUP. Run it last.
func probePtyCtty(string) (string, error) {
	m, s, err := openPty()
	if err != nil {
		return "no pty", err
	}
	defer unix.Close(s)
	_ = m // left open, see above
	if err := unix.IoctlSetInt(s, unix.TIOCSCTTY, 0); err != nil {
		unix.Close(m)
		return "TIOCSCTTY", err
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "no /dev/tty", err
	}
	f.Close()
	return "controlling terminal", nil
}
