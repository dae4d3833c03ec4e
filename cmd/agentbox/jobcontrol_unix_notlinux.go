//go:build unix && !linux

package main

import "golang.org/x/sys/unix"

// defaultTerminalStops: not done here; the prompt runs with SIGTTIN and
// SIGTTOU ignored (withTerminalStops).
func defaultTerminalStops() {}

// stopForTerminal stops agentbox until a SIGCONT (SIGTTIN cannot be put
// back to its default here: defaultTerminalStops).
func stopForTerminal() { _ = unix.Kill(unix.Getpid(), unix.SIGSTOP) }
