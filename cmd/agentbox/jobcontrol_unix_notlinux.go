//go:build unix && !linux

package main

// defaultTerminalStops: not done here; the prompt runs with SIGTTIN and
// SIGTTOU ignored (withTerminalStops).
func defaultTerminalStops() {}
