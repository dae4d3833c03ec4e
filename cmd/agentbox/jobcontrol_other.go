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
