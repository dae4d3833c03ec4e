//go:build !linux

package main

import (
	"errors"
	"io"
	"os"
)

// terminalRelay: sandboxes, and so their terminals, exist on Linux only.
type terminalRelay struct{}

func checkTerminal(io.Reader) (*os.File, error) {
	return nil, errors.New("--tty needs the Linux sandbox")
}

func startRelay(*os.File, io.Writer, *os.File) (*terminalRelay, error) {
	return nil, errors.New("--tty needs the Linux sandbox")
}

func (*terminalRelay) finish() {}

func terminalSize(*os.File) [2]uint16 { return [2]uint16{} }
