//go:build !linux

package main

// guardInterrupt: no sandbox shares agentbox's terminal here.
func guardInterrupt(func()) (stop func()) { return func() {} }
