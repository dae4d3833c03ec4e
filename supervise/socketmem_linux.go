//go:build linux

package supervise

import (
	"bytes"
	"os"
	"strconv"
)

// tcpTables are the sandbox network namespace's TCP socket lists, read
// through its init (process 1 of its /proc): /proc/PID/net shows the
// namespace of PID.
var tcpTables = []string{"1/net/tcp", "1/net/tcp6"}

// tcpListen is the state /proc/net/tcp writes for a listening socket,
// whose queue fields count connections, not bytes.
var tcpListen = []byte("0A")

// ownNetwork says whether the sandbox whose init is initPid has a network
// namespace of its own (blocked, filtered): then every TCP socket of that
// namespace is the sandbox's. With the host's network (allowed) they are
// the host's, which no sandbox may be charged for.
func ownNetwork(initPid int) bool {
	theirs, err1 := os.Readlink("/proc/" + strconv.Itoa(initPid) + "/ns/net")
	ours, err2 := os.Readlink("/proc/self/ns/net")
	return err1 == nil && err2 == nil && theirs != ours
}

// socketBytes sums the bytes queued in the TCP sockets of the sandbox's
// own network namespace, sent and not yet acknowledged or received and
// not yet read. They are kernel memory of no process's count, and TCP
// autotuning lets one socket hold megabytes past net.core.rmem_max
// (TestRedteam28MonitorMissesTCPBuffers). A table that cannot be read
// (no IPv6) adds nothing.
func (s *treeSampler) socketBytes() int64 {
	if !s.ownNet {
		return 0
	}
	var n int64
	for _, t := range tcpTables {
		if b, err := s.readAll(t); err == nil {
			n += tcpQueued(b)
		}
	}
	return n
}

// tcpQueued sums tx_queue and rx_queue (hex, bytes) of the sockets of a
// /proc/net/tcp table (its text), listening sockets left out.
func tcpQueued(b []byte) int64 {
	var n int64
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) < 5 || !bytes.HasSuffix(f[0], []byte(":")) || bytes.Equal(f[3], tcpListen) {
			continue // the header, or a listener
		}
		tx, rx, ok := bytes.Cut(f[4], []byte(":"))
		t, err1 := strconv.ParseUint(string(tx), 16, 32)
		r, err2 := strconv.ParseUint(string(rx), 16, 32)
		if ok && err1 == nil && err2 == nil {
			n += int64(t) + int64(r)
		}
	}
	return n
}
