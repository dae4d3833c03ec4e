//go:build !unix

package main

// holdStops: no job control here.
func holdStops(func(string)) (release func()) { return func() {} }

// ignoreTerminalStops: no job control here.
func ignoreTerminalStops() {}

// withTerminalStops: no job control here.
func withTerminalStops(fn func()) { fn() }

// defaultTerminalStops: no job control here.
func defaultTerminalStops() {}

// terminalForeground: no job control here.
func terminalForeground(int) bool { return true }

// stopForTerminal: no job control here.
func stopForTerminal() {}

// parentKeepsGroup: no job control here.
func parentKeepsGroup() bool { return true }
