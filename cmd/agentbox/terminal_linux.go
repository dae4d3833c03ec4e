//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// terminalRelay connects the user's terminal to the master of a sandboxed
// program's own terminal (agentbox exec --tty): the user's terminal goes
// raw, so that every key (^C, ^Z, arrows) reaches the program's terminal,
// whose line discipline, inside the sandbox, acts on it; the window size
// follows the user's.
type terminalRelay struct {
	in      *os.File
	master  *os.File
	saved   *term.State
	winch   chan os.Signal
	outDone chan struct{}
}

// errNotTerminal is --tty without a terminal on stdin.
var errNotTerminal = errors.New("--tty needs a terminal on stdin: run it from one, or leave --tty out")

// checkTerminal tells whether r is a terminal --tty can relay.
func checkTerminal(r io.Reader) (*os.File, error) {
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, errNotTerminal
	}
	return f, nil
}

// terminalSize is the window size of the user's terminal in, rows then
// columns; zero when it cannot be read.
func terminalSize(in *os.File) [2]uint16 {
	ws, err := unix.IoctlGetWinsize(int(in.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return [2]uint16{}
	}
	return [2]uint16{ws.Row, ws.Col}
}

// startRelay puts in in raw mode and starts copying both ways.
func startRelay(in *os.File, out io.Writer, master *os.File) (*terminalRelay, error) {
	if master == nil {
		return nil, errors.New("the sandbox gave the command no terminal")
	}
	saved, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return nil, err
	}
	r := &terminalRelay{in: in, master: master, saved: saved, winch: make(chan os.Signal, 1), outDone: make(chan struct{})}
	signal.Notify(r.winch, unix.SIGWINCH)
	r.resize()
	go func() {
		for range r.winch {
			r.resize()
		}
	}()
	// What the user types; this read of the user's terminal stays blocked
	// when the program ends first, and ends with agentbox.
	go func() { _, _ = io.Copy(master, in) }()
	go func() {
		defer close(r.outDone)
		_, _ = io.Copy(out, master) // until EIO: no process of the sandbox holds the terminal
	}()
	return r, nil
}

// resize gives the program's terminal the size of the user's.
func (r *terminalRelay) resize() {
	ws, err := unix.IoctlGetWinsize(int(r.in.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return
	}
	rc, err := r.master.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _ = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
}

// finish waits (briefly: the sandbox is gone by now) for the program's last
// output to be written out, and gives the user's terminal its modes back.
func (r *terminalRelay) finish() {
	select {
	case <-r.outDone:
	case <-time.After(2 * time.Second):
	}
	signal.Stop(r.winch)
	close(r.winch)
	_ = term.Restore(int(r.in.Fd()), r.saved)
	r.master.Close()
}
