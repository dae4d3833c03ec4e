//go:build !unix

package main

// holdStops: no job control here.
func holdStops(func(string)) (release func()) { return func() {} }

// ignoreTerminalStops: no job control here.
func ignoreTerminalStops() {}
