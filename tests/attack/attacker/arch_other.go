//go:build linux && !amd64

package main

const (
	sysOpen  = -1
	sysCreat = -1
	sysChmod = -1
)

const x32Bit = 0

func int80(trap uintptr) uintptr { return 0 }

const haveInt80 = false

const i386Getpid = 0

func archKernelCalls() map[string]func() error { return nil }
