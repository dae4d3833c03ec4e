//go:build linux

package linux

import (
	"fmt"
	"os"
	"sync"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// The agentbox process and the sandbox init talk over a SOCK_SEQPACKET
// control socket, the init's descriptor ctlFD. The first message, msgSpec,
// carries descriptors: a sealed memfd holding the initSpec, then the
// program's stdin, stdout and stderr when it has its own (otherwise it
// inherits the init's), then the idmapped mount trees of a root caller.
// Because the spec comes over the socket, an init can be started before
// the command is known and wait, warm, for it.
const ctlFD = 3

// initArg0 marks a re-executed agentbox binary as a sandbox init.
const initArg0 = "agentbox-sandbox-init"

// opKind is one step of building the new root.
type opKind string

const (
	opBindRW   opKind = "bind-rw"   // bind Src (host) read-write at Dst
	opBindRO   opKind = "bind-ro"   // bind Src (host; empty: Dst itself) read-only at Dst
	opMaskDir  opKind = "mask-dir"  // empty, mode 000 directory bound read-only at Dst
	opMaskFile opKind = "mask-file" // empty, mode 000 file bound read-only at Dst
	opTmpfs    opKind = "tmpfs"     // empty, writable, private tmpfs at Dst (if Dst exists)
	opMaskAuto opKind = "mask"      // mask-dir or mask-file, whichever Dst is; nothing if it is missing
	opPin      opKind = "pin"       // bind Dst onto itself, keeping its writability, so it cannot be renamed
	opIdmapRW  opKind = "idmap-rw"  // attach idmapped mount number FD read-write at Dst
	opIdmapRO  opKind = "idmap-ro"  // attach idmapped mount number FD read-only at Dst
	opOverlay  opKind = "overlay"   // Dst over itself, writable, its changes in a private layer
	opSeal     opKind = "seal"      // every FIFO and socket below Dst masked (a host directory shown in a private area)
	opHoldLink opKind = "hold-link" // the symbolic link Dst bound onto itself, so that it cannot be removed, renamed or replaced
)

// mountOp is one mount of the plan, applied in order after the base root
// (read-only host tree, /proc, /dev, /tmp) exists.
type mountOp struct {
	Kind opKind
	Src  string
	Dst  string
	// Dir says whether Dst is (or must be created as) a directory.
	Dir bool
	// FD indexes the idmapped mount descriptors the parent sends.
	FD int
	// Watch says the mount alone keeps Dst hidden or read-only (Landlock
	// grants more there): the init stops the sandbox if it vanishes
	// (mountWatch).
	Watch bool
}

// fileSpec is a file the init writes into the sandbox.
type fileSpec struct {
	Name string
	Data []byte
}

// FilesDir is where Spec.Files appear inside a sandbox: in its private /run.
const FilesDir = sandbox.FilesDir

// landlockSpec is the input of the Landlock layer, in sandbox paths.
type landlockSpec struct {
	ReadRoots []string // read + execute beneath these ...
	DenyRead  []string // ... except beneath these
	// Hidden withholds read beneath these as well, but for the ReadRoots
	// that lie inside them (the reduced tier: the host's /tmp, /dev/shm
	// and /run, private areas of the full tier, with what it shows there).
	Hidden     []string
	WriteRoots []string // full rights beneath these
	Devices    []string // read, write and ioctl on these device nodes
	// TCP, in the reduced tier, restricts TCP bind and connect to
	// ConnectPorts (none: no TCP at all).
	TCP          bool
	ConnectPorts []int
}

// initSpec is everything the init needs; the parent prepares it so that the
// init does no policy work of its own.
type initSpec struct {
	Path string
	Args []string
	Env  []string
	Dir  string

	Hostname string
	// ReadOnly, when set, is the read allow-list: the new root holds only
	// these host paths (sorted, parents first). Empty: the whole host tree.
	ReadOnly  []string
	Mounts    []mountOp
	TmpfsSize int64
	Network   string
	ProxyPort int
	Landlock  landlockSpec
	Limits    limitsSpec
	// AllowUnixSockets lets the program create AF_UNIX sockets even where
	// Landlock cannot confine them.
	AllowUnixSockets bool
	// Files are written into the sandbox's private /run before the program
	// starts (FilesDir/name).
	Files []fileSpec
	// Reduced, when set, says why the reduced tier runs (no namespaces:
	// Landlock, seccomp and rlimits only).
	Reduced string
	// PrivateTmp is the reduced tier's private temporary directory in the
	// host's file tree. agentbox removes it when the sandbox is released;
	// the init removes it when agentbox died first (no one else would).
	PrivateTmp string
	// MissingLayers lets the init run without a layer the kernel lacks
	// (Landlock) instead of failing: the warn fallback.
	MissingLayers bool
	// Terminal gives the program a pseudo-terminal the init makes in the
	// sandbox's own devpts; its master goes to the parent with msgReady.
	// TermRows and TermCols are its window size when the program starts.
	Terminal           bool
	TermRows, TermCols int
	// AwaitCgroup makes the init wait, before it starts the program, for
	// msgCgroup: the parent is still moving it into the sandbox's cgroup.
	AwaitCgroup bool
}

type limitsSpec struct {
	Processes       uint64
	MemoryBytes     uint64
	FileDescriptors uint64
	CPUSeconds      uint64
	// CountedOnly: see sandbox.Limits; with MemoryBytes (which a cgroup
	// zeroes), the seccomp filter refuses uncountedMemory.
	CountedOnly bool
}

// uncounted says a memory limit is enforced by a monitor that sums the
// processes' memory, not by a cgroup: what that sum cannot see is refused
// (uncountedMemory, sharedAnonRule, zeroDevice, RLIMIT_MEMLOCK 0).
func (l limitsSpec) uncounted() bool { return l.CountedOnly && l.MemoryBytes > 0 }

// Control messages. The init sends msgSelf once it has its spec, msgReady
// or msgError once, then msgExit
// when the program has ended (Err: why the init stopped the sandbox
// itself, if it did: see mountWatch). The parent sends msgSpec, then msgCgroup if
// the spec says AwaitCgroup (Err: the move failed, do not run), and
// msgKill to end the sandbox's tree where it may not signal the init
// itself (Prepare's init: see handle.Kill).
type ctlMsg struct {
	Type   string
	Layers []string
	Stage  string
	Err    string
	// Unavailable marks an error caused by a missing kernel feature.
	Unavailable bool
	Code        int
	Signal      int
	// Stdio, Idmaps and CgroupTasks describe the descriptors that came
	// with msgSpec, in that order. CgroupTasks are cgroup v1 tasks files,
	// opened for writing, that the thread which forks the program joins
	// (joinByTasks).
	Stdio       bool
	Idmaps      int
	CgroupTasks int
	// Terminal says that the last descriptor of msgReady is the master of
	// the program's terminal.
	Terminal bool
	// Watch says that a descriptor of msgReady, the last but the
	// terminal's, is the mount watch's inotify instance, for the parent to
	// hold (see watchshare.go).
	Watch bool
	// Started is when the init started the program (msgReady), in
	// CLOCK_MONOTONIC nanoseconds: the host's clock, as no sandbox has a
	// time namespace of its own.
	Started uint64
	// Payload is msgSpec's encoded initSpec when it fits the message;
	// otherwise the spec comes in a sealed memfd, the first descriptor.
	Payload []byte
}

// maxInlineSpec is the largest spec sent in the message itself, well
// under the receive buffer (a CA bundle for credentials goes by memfd).
const maxInlineSpec = 48 << 10

const (
	// msgSelf carries a pidfd of the init itself, sent before the program
	// starts: the parent of a Prepare'd init, which the caller started and
	// may stop, wakes it with it (handle.wakeLocked). Sent with msgReady,
	// after the program had started, it was late for a caller that stopped
	// the init as soon as the program ran (red-team round 55's test).
	msgSelf   = "self"
	msgReady  = "ready"
	msgError  = "error"
	msgExit   = "exit"
	msgSpec   = "spec"
	msgCgroup = "cgroup"
	msgKill   = "kill"
	// msgSignal asks the init to send Signal to the program's process
	// group: a signal it does not forward (SIGSTOP, SIGTSTP, …) would act
	// on the init itself (see handle.Signal).
	msgSignal = "signal"
)

// sendMsg writes one message, with optional descriptors, on a SEQPACKET socket.
func sendMsg(fd int, m ctlMsg, fds ...int) error {
	return sendBytes(fd, m.encode(), fds...)
}

// recvMsg reads one message and the descriptors that came with it.
func recvMsg(fd int) (ctlMsg, []int, error) {
	bufs := msgBufs.Get().(*[2][]byte)
	defer msgBufs.Put(bufs)
	b, fds, err := recvInto(fd, bufs)
	if err != nil {
		return ctlMsg{}, nil, err
	}
	m, err := decodeCtlMsg(b)
	if err != nil {
		closeAll(fds)
		return m, nil, fmt.Errorf("control message: %w", err)
	}
	return m, fds, nil
}

// sendBytes writes one encoded message, with optional descriptors.
func sendBytes(fd int, b []byte, fds ...int) error {
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	return unix.Sendmsg(fd, b, oob, nil, 0)
}

// recvBytes reads one encoded message into a buffer of its own.
func recvBytes(fd int) ([]byte, []int, error) {
	bufs := msgBufs.Get().(*[2][]byte)
	defer msgBufs.Put(bufs)
	b, fds, err := recvInto(fd, bufs)
	return append([]byte(nil), b...), fds, err
}

// recvInto reads one message into bufs; the bytes it returns are bufs'.
func recvInto(fd int, bufs *[2][]byte) ([]byte, []int, error) {
	buf, oob := bufs[0], bufs[1]
	for {
		n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR || err == unix.ECONNRESET {
			// ECONNRESET: the peer left with a message of ours unread (an
			// init that failed before reading msgCgroup). The kernel says
			// so once, ahead of what the peer sent before it left; read on
			// to that, then to the end.
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		var fds []int
		if oobn > 0 {
			cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				return nil, nil, err
			}
			for _, c := range cmsgs {
				r, err := unix.ParseUnixRights(&c)
				if err == nil {
					fds = append(fds, r...)
				}
			}
		}
		if n == 0 {
			closeAll(fds)
			return nil, nil, errClosed
		}
		return buf[:n], fds, nil
	}
}

var errClosed = fmt.Errorf("control socket closed")

// msgBufs holds receive buffers, so that reading a message does not
// allocate (and zero) 64 KiB each time.
var msgBufs = sync.Pool{New: func() any {
	return &[2][]byte{make([]byte, 64<<10), make([]byte, unix.CmsgSpace(64*4))}
}}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// specMemfd returns a sealed memfd holding spec, for the init to read.
func specMemfd(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("agentbox-spec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "agentbox-spec")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("seal spec: %w", err)
	}
	return f, nil
}
