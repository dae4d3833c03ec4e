//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"alloc":       probeAlloc,
		"membomb":     probeMemBomb,
		"shmbomb":     probeShmBomb,
		"memfdbomb":   probeMemfdBomb,
		"manyalloc":   probeManyAlloc,
		"inotifybomb": probeInotifyBomb,
		"rtsched":     probeRTSched,
		"renice":      probeRenice,
	})
}

// probeRTSched makes the process SCHED_FIFO: a busy loop would then take a
// CPU from everything of normal priority.
func probeRTSched(string) (string, error) {
	type schedParam struct{ priority int32 }
	p := schedParam{priority: 1}
	_, _, e := unix.Syscall(unix.SYS_SCHED_SETSCHEDULER, 0, 1 /* SCHED_FIFO */, uintptr(unsafe.Pointer(&p)))
	if e != 0 {
		return "", e
	}
	return "SCHED_FIFO", nil
}

// probeRenice raises the process's priority above normal (nice -5).
func probeRenice(string) (string, error) {
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, -5); err != nil {
		return "", err
	}
	return "nice -5", nil
}

// held keeps what a bomb took until the attacker exits.
var held []int

// probeInotifyBomb makes inotify instances until the kernel refuses, and
// keeps them: they count against the caller's per-user limit too. It
// reports how many it got.
func probeInotifyBomb(string) (string, error) {
	for {
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			return fmt.Sprintf("held %d", len(held)), err
		}
		held = append(held, fd)
	}
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
	// The list is allocated whole before the bomb: at the limit, the Go
	// runtime's own next request for memory fails as the bomb's mmap
	// does, and a runtime that cannot allocate dies (fatal error, no
	// result). Nothing here asks it for memory until some is given back.
	held := make([][]byte, 0, n)
	defer func() {
		for _, b := range held {
			_ = unix.Munmap(b)
		}
	}()
	for len(held) < n {
		b, err := unix.Mmap(-1, 0, mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			got := len(held)
			for len(held) > 0 && got-len(held) < bombHeadroomMiB {
				_ = unix.Munmap(held[len(held)-1])
				held = held[:len(held)-1]
			}
			return fmt.Sprintf("held %d MiB", got), err
		}
		touch(b)
		held = append(held, b)
	}
	return fmt.Sprintf("held %d MiB", len(held)), nil
}

// bombHeadroomMiB is what a bomb that met the limit gives back before it
// reports (which allocates).
const bombHeadroomMiB = 8

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

// probeManyAlloc: "N|MB": N child processes each hold MB MiB of private
// memory at the same time (each under a per-process limit, together above
// it); allowed means all of them held it.
func probeManyAlloc(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(a[0])
	if err != nil || n <= 0 {
		return "", fmt.Errorf("bad count %q", a[0])
	}
	if _, err := parseMiB(a[1]); err != nil {
		return "", err
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	var procs []*os.Process
	defer func() {
		for _, p := range procs {
			_ = p.Kill()
			_, _ = p.Wait()
		}
	}()
	held := 0
	for i := 0; i < n; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			return "", err
		}
		p, err := os.StartProcess(self, []string{self, "child", "hold:" + a[1]}, &os.ProcAttr{Files: []*os.File{nil, w, os.Stderr}})
		w.Close()
		if err != nil {
			r.Close()
			return fmt.Sprintf("%d of %d held %s MiB", held, n, a[1]), unwrap(err)
		}
		procs = append(procs, p)
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		if strings.TrimSpace(line) != "held" {
			return fmt.Sprintf("%d of %d held %s MiB; child %d said %q", held, n, a[1], i, line), errNotObtained
		}
		held++
	}
	// The kernel may have killed earlier children to make room for later
	// ones: only children still alive hold their memory.
	time.Sleep(200 * time.Millisecond)
	alive := 0
	var deaths []string
	for i, p := range procs {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
		if err == nil && pid == 0 {
			alive++
			continue
		}
		deaths = append(deaths, fmt.Sprintf("child %d: %v", i, ws.Signal()))
	}
	detail := fmt.Sprintf("%d of %d held %s MiB, %d still alive", held, n, a[1], alive)
	if alive < n {
		return detail + " (" + strings.Join(deaths, ", ") + ")", errNotObtained
	}
	return detail + " at once", nil
}

// holdMemory is the child side of manyalloc: hold MB MiB, say so, wait.
func holdMemory(arg string) int {
	n, err := parseMiB(arg)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	b, err := unix.Mmap(-1, 0, n*mib, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	touch(b)
	fmt.Println("held")
	time.Sleep(60 * time.Second)
	return 0
}
