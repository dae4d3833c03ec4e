//go:build linux

package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Helpers of red-team round 47 (helper a): a probe program built per
// test from the Go source below and run inside sandboxes.

// rt47aProbeSrc is the probe: `probe MODE ARGS...`.
//
//	hostuid                  print the host uid the sandbox runs as ("hostuid=N")
//	fscryptrm DIR IDHEX      FS_IOC_REMOVE_ENCRYPTION_KEY of key IDHEX on DIR's file system
//	alloc MIB                allocate and touch MIB MiB of heap, print "allocated"
//	nlfill TARGETMIB MAXSOCK DONEFILE HOLDSECS
//	                         queue error acks in netlink route sockets nobody
//	                         reads until /proc/net/netlink says TARGETMIB MiB
//	                         are queued (or MAXSOCK sockets are full), print
//	                         "queued=N" (bytes), touch DONEFILE, hold HOLDSECS
const rt47aProbeSrc = `package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// queued sums the Rmem column of /proc/net/netlink: what the kernel holds
// in the receive queues of this network namespace's netlink sockets.
func queued() int64 {
	f, err := os.Open("/proc/net/netlink")
	if err != nil {
		return -1
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 6 || fl[0] == "sk" {
			continue
		}
		n, _ := strconv.ParseInt(fl[4], 10, 64)
		total += n
	}
	return total
}

func nlfill(targetMiB, maxSock int, done string, hold int) {
	const msgSize = 32 << 10
	msg := make([]byte, msgSize)
	// struct nlmsghdr: len, type RTM_NEWLINK (16), flags REQUEST|ACK (5).
	*(*uint32)(unsafe.Pointer(&msg[0])) = msgSize
	*(*uint16)(unsafe.Pointer(&msg[4])) = 16
	*(*uint16)(unsafe.Pointer(&msg[6])) = 5
	target := int64(targetMiB) << 20
	socks := 0
	for socks < maxSock && queued() < target {
		s, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
		if err != nil {
			fmt.Println("socket:", err)
			break
		}
		socks++
		syscall.SetsockoptInt(s, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 2*msgSize+4096)
		syscall.SetsockoptInt(s, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<20) // capped at rmem_max
		to := &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}
		for k := 0; k < 100000; k++ {
			*(*uint32)(unsafe.Pointer(&msg[8])) = uint32(k)
			if err := syscall.Sendto(s, msg, 0, to); err != nil {
				break
			}
			// The kernel drops acks past the receive buffer and leaves ENOBUFS.
			if e, _ := syscall.GetsockoptInt(s, syscall.SOL_SOCKET, syscall.SO_ERROR); e == int(syscall.ENOBUFS) {
				break
			}
		}
	}
	fmt.Printf("sockets=%d queued=%d\n", socks, queued())
	os.WriteFile(done, []byte("held\n"), 0o644)
	time.Sleep(time.Duration(hold) * time.Second)
	fmt.Printf("end queued=%d\n", queued())
}

// fscryptRemove asks the file system holding dir to remove the caller's
// claim to the fscrypt master key identified by idHex
// (FS_IOC_REMOVE_ENCRYPTION_KEY on a descriptor opened read-only).
func fscryptRemove(dir, idHex string) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	// struct fscrypt_remove_key_arg: key_spec (type, reserved, 32-byte
	// union), removal_status_flags, 5 reserved words: 64 bytes.
	var arg [64]byte
	*(*uint32)(unsafe.Pointer(&arg[0])) = 2 // FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	for i := 0; i < 16; i++ {
		var b byte
		fmt.Sscanf(idHex[2*i:2*i+2], "%02x", &b)
		arg[8+i] = b
	}
	const fsIocRemoveEncryptionKey = 0xc0406618
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), fsIocRemoveEncryptionKey, uintptr(unsafe.Pointer(&arg[0])))
	fmt.Printf("remove errno=%d flags=%d\n", e, *(*uint32)(unsafe.Pointer(&arg[40])))
}

func main() {
	switch os.Args[1] {
	case "alloc":
		n := atoi(os.Args[2])
		var keep [][]byte
		for i := 0; i < n; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			keep = append(keep, b)
		}
		fmt.Println("allocated", len(keep))
	case "hostuid":
		b, _ := os.ReadFile("/proc/self/uid_map")
		f := strings.Fields(string(b))
		if len(f) >= 2 {
			fmt.Println("hostuid=" + f[1])
		}
	case "fscryptrm":
		fscryptRemove(os.Args[2], os.Args[3])
	case "nlfill":
		nlfill(atoi(os.Args[2]), atoi(os.Args[3]), os.Args[4], atoi(os.Args[5]))
	default:
		fmt.Println("unknown mode")
		os.Exit(2)
	}
}
`

// rt47aProbe builds the probe into a directory of the test's own that
// the sandbox can read (removed when the test ends) and returns its path.
func rt47aProbe(t *testing.T) string {
	t.Helper()
	dir := hostDir(t)
	src := filepath.Join(dir, "probe.go")
	if err := os.WriteFile(src, []byte(rt47aProbeSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build: %v\n%s", err, out)
	}
	return bin
}
