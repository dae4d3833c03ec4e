//go:build linux

package main

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"alloc":     probeAlloc,
		"membomb":   probeMemBomb,
		"shmbomb":   probeShmBomb,
		"memfdbomb": probeMemfdBomb,
	})
}

const mib = 1 << 20

func parseMiB(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q (MiB)", arg)
	}
	return n, nil
}

// touch writes one byte in every page so the memory is really committed.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
}

// probeAlloc maps and touches N MiB of private memory at once: the control.
func probeAlloc(arg string) (string, error) {
	n, err := parseMiB(arg)
	if err != nil {
		return "", err
	}
	b, err := unix.Mmap(-1, 0, n*mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return "", err
	}
	touch(b)
	_ = unix.Munmap(b)
	return fmt.Sprintf("%d MiB", n), nil
}

// probeMemBomb maps and touches private memory 1 MiB at a time until the
// kernel refuses or N MiB are held; allowed means all N MiB were obtained.
func probeMemBomb(arg string) (string, error) {
	n, err := parseMiB(arg)
	if err != nil {
		return "", err
	}
	var held [][]byte
	defer func() {
		for _, b := range held {
			_ = unix.Munmap(b)
		}
	}()
	for len(held) < n {
		b, err := unix.Mmap(-1, 0, mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return fmt.Sprintf("held %d MiB", len(held)), err
		}
		touch(b)
		held = append(held, b)
	}
	return fmt.Sprintf("held %d MiB", len(held)), nil
}

// probeShmBomb maps N MiB of shared anonymous memory (which RLIMIT_DATA
// does not count) and touches all of it.
func probeShmBomb(arg string) (string, error) {
	n, err := parseMiB(arg)
	if err != nil {
		return "", err
	}
	b, err := unix.Mmap(-1, 0, n*mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return "", err
	}
	touch(b)
	_ = unix.Munmap(b)
	return fmt.Sprintf("held %d MiB of shared memory", n), nil
}

// probeMemfdBomb fills an N MiB memfd (shmem, not counted by RLIMIT_DATA).
func probeMemfdBomb(arg string) (string, error) {
	n, err := parseMiB(arg)
	if err != nil {
		return "", err
	}
	fd, err := unix.MemfdCreate("agentbox-attack", unix.MFD_CLOEXEC)
	if err != nil {
		return "memfd_create", err
	}
	defer unix.Close(fd)
	chunk := make([]byte, mib)
	for i := range chunk {
		chunk[i] = 1
	}
	for i := 0; i < n; i++ {
		if _, err := unix.Write(fd, chunk); err != nil {
			return fmt.Sprintf("wrote %d MiB", i), err
		}
	}
	return fmt.Sprintf("held %d MiB in a memfd", n), nil
}
