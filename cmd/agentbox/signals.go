package main

import (
	"os"
	"os/signal"
	"syscall"
)

// interruptSignals starts catching the signals a person or a supervisor
// sends to stop a command, before the command starts, so that none is
// lost (or kills agentbox) in between.
func interruptSignals() chan os.Signal {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	return sigs
}

// signaller is what signals are relayed to: a sandboxed process or agent.
type signaller interface{ Signal(os.Signal) error }

// relaySignals passes what sigs catches on to to, until stop is called.
func relaySignals(sigs chan os.Signal, to signaller) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = to.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
