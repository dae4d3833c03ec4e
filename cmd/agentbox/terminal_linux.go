//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
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
	winch   chan os.Signal
	outDone chan struct{}

	mu       sync.Mutex
	saved    *term.State // the modes to give back; nil until raw
	finished bool

	stop stopKey
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
	r := &terminalRelay{in: in, master: master, winch: make(chan os.Signal, 1), outDone: make(chan struct{})}
	// Started in the background (agentbox ... --tty &), agentbox leaves
	// the terminal to the foreground job until it is brought forward
	// (copyIn): job control, which would stop it, is held while the
	// program runs (ignoreTerminalStops).
	if inForeground(in) {
		saved, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return nil, err
		}
		r.saved = saved
	}
	signal.Notify(r.winch, unix.SIGWINCH)
	r.resize()
	go func() {
		for range r.winch {
			r.resize()
		}
	}()
	// What the user types; this read of the user's terminal stays blocked
	// when the program ends first, and ends with agentbox.
	go r.copyIn()
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
	r.mu.Lock()
	r.finished = true
	if r.saved != nil {
		_ = term.Restore(int(r.in.Fd()), r.saved)
	}
	r.mu.Unlock()
	r.master.Close()
}

// copyIn copies what the user types to the program's terminal while
// agentbox is in the terminal's foreground. In the background a read fails
// with EIO (SIGTTIN is ignored while the program runs): it waits to be
// brought forward and reads again, so that it never takes what the user
// types to another job.
func (r *terminalRelay) copyIn() {
	buf := make([]byte, 4096)
	for r.awaitForeground() {
		n, err := r.in.Read(buf)
		if n > 0 {
			if _, werr := r.master.Write(buf[:n]); werr != nil {
				return
			}
			if r.stop.pressed(buf[:n], time.Now()) {
				// As if the user's terminal had sent agentbox ^C.
				_ = unix.Kill(os.Getpid(), unix.SIGINT)
			}
		}
		if err != nil && !readAgain(err, inForeground(r.in)) {
			return
		}
	}
}

// readAgain tells whether a read of the user's terminal that failed with
// err is to be tried again: EIO in the background is job control's answer
// (SIGTTIN ignored), any other failure, or EIO in the foreground (a hang-up),
// ends the relay's input.
func readAgain(err error, foreground bool) bool {
	return errors.Is(err, unix.EIO) && !foreground
}

// foregroundPoll is how often a relay in the background looks whether it
// was brought forward.
const foregroundPoll = 200 * time.Millisecond

// awaitForeground waits until agentbox is in the foreground of the user's
// terminal and puts it in raw mode then if it is not yet; false once the
// relay is finished.
func (r *terminalRelay) awaitForeground() bool {
	for !inForeground(r.in) {
		time.Sleep(foregroundPoll)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return false
	}
	if r.saved == nil {
		if saved, err := term.MakeRaw(int(r.in.Fd())); err == nil {
			r.saved = saved
		}
	}
	return true
}

// inForeground tells whether agentbox's process group is the foreground
// group of terminal f (true when that cannot be told: f is then not a
// terminal job control applies to).
func inForeground(f *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err != nil || pgrp == unix.Getpgrp()
}
