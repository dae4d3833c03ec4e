//go:build linux

package main

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// guardPoll is how often guardInterrupt looks at the terminal's modes.
const guardPoll = 100 * time.Millisecond

// guardInterrupt keeps ^C working on agentbox's controlling terminal while
// a command that shares it runs (without --tty): the terminal's line
// discipline turns the key into agentbox's SIGINT only while ISIG is set
// and VINTR is the user's key, and the command may change both on the
// descriptor it was handed (stty -isig; a full-screen program killed in
// raw mode). Where they change, agentbox sets them back, once per change,
// and tells the user through changed. It looks every guardPoll while
// agentbox holds the terminal's foreground; a command that keeps clearing
// them can still win the keys pressed between two looks (agentbox kill,
// and --tty's own stop key, stay: see stopKey). Found by red-team round 59.
func guardInterrupt(changed func()) (stop func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return func() {} // no controlling terminal: no key to keep
	}
	fd := int(tty.Fd())
	orig, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil || orig.Lflag&unix.ISIG == 0 {
		tty.Close() // the user's own choice: nothing to keep
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(guardPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || pgrp != unix.Getpgrp() {
				continue // another job's terminal now: its modes are its own
			}
			cur, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil || cur.Lflag&unix.ISIG != 0 && cur.Cc[unix.VINTR] == orig.Cc[unix.VINTR] {
				continue
			}
			cur.Lflag |= unix.ISIG
			cur.Cc[unix.VINTR] = orig.Cc[unix.VINTR]
			if unix.IoctlSetTermios(fd, unix.TCSETS, cur) == nil {
				changed()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		tty.Close()
	}
}
