// Package sandbox defines what every isolation backend implements: the Spec of
// one sandboxed process, the Runtime that starts it, the Process it returns
// and the Layers it reports. Backends live in sub-packages (sandbox/linux is
// the native, embedded default).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// NetworkMode says what network a sandbox gets.
type NetworkMode int

const (
	// NetworkFiltered gives the sandbox a private network namespace whose only
	// way out is the egress proxy listening on its loopback.
	NetworkFiltered NetworkMode = iota
	// NetworkBlocked gives the sandbox a private network namespace with only
	// a loopback interface.
	NetworkBlocked
	// NetworkAllowed shares the host network; every other layer stays on.
	NetworkAllowed
)

var networkModeNames = [...]string{"filtered", "blocked", "allowed"}

// String returns "filtered", "blocked" or "allowed".
func (m NetworkMode) String() string {
	if int(m) < len(networkModeNames) && m >= 0 {
		return networkModeNames[m]
	}
	return "invalid"
}

// ParseNetworkMode parses the names String returns.
func ParseNetworkMode(s string) (NetworkMode, error) {
	for i, n := range networkModeNames {
		if n == s {
			return NetworkMode(i), nil
		}
	}
	return 0, errors.New("unknown network mode " + `"` + s + `"` + " (want blocked, filtered or allowed)")
}

// MarshalText implements encoding.TextMarshaler.
func (m NetworkMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *NetworkMode) UnmarshalText(b []byte) error {
	v, err := ParseNetworkMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Filesystem is the filesystem view of a sandbox. Every path is absolute and
// clean; symlinks are resolved by the caller before the Spec is built, so the
// runtime sees the real locations.
type Filesystem struct {
	// Read, when not empty, restricts reads to these paths plus the system
	// directories a process needs to run. Empty means the whole filesystem is
	// readable, except DenyRead. Entries inside /tmp, /dev/shm or /run are
	// shown, read-only, inside the sandbox's private ones.
	Read []string
	// Writable are the roots the sandbox may write to.
	Writable []string
	// DenyRead are masked: neither readable nor writable, whatever Read and
	// Writable say, also when they do not exist yet.
	DenyRead []string
	// DenyWrite stay read-only even inside a writable root, also when they do
	// not exist yet.
	DenyWrite []string
	// Visible are directories inside /tmp or /dev/shm, which every sandbox
	// replaces with private ones, that it is shown, read-only: the caller's
	// working directory, say. DenyRead and Read still apply.
	Visible []string
	// Home is the user's home directory. A sandbox started by root runs as
	// an unprivileged user on the host; it is shown its home, read-only and
	// less DenyRead, as its own.
	Home string
	// Protected are paths relative to each writable root (".git",
	// ".vscode") that are kept read-only; one that does not exist yet, in a
	// directory that does, is held by a placeholder directory for the run.
	Protected []string
	// ProtectedIfPresent are kept read-only where they exist, and left
	// alone where they do not.
	ProtectedIfPresent []string
	// Holds are files inside writable roots kept read-only; one that does
	// not exist is created with the given content for the run (and removed
	// afterwards), so a command can neither change nor plant it.
	Holds map[string][]byte
	// Scratch are directories the sandbox may write with every change
	// discarded when it ends: an overlay with the host's directory below
	// and a private layer above. Missing ones, and ones that are denied,
	// unreadable or inside a writable root, are left as they are; DenyRead
	// still applies inside them.
	Scratch []string
	// SeekLinks are the deny paths (of DenyRead, named as there) whose
	// other names, hard links an earlier command may have made, are
	// sought in Writable and Granted and hidden too; Granted are the
	// directories a sandbox of this user was ever given to write
	// (agentbox's record), where such a link may lie.
	SeekLinks, Granted []string
}

// Limits are resource limits; zero means "no limit of this kind".
type Limits struct {
	Processes       int64
	MemoryBytes     int64
	FileDescriptors int64
	CPUSeconds      int64
	// CountedOnly refuses, where no memory cgroup enforces MemoryBytes,
	// the shared memory no count of a process's memory sees (see
	// agentbox.ResourceLimits.CountedMemoryOnly).
	CountedOnly bool
}

// Spec describes the isolation of one sandboxed program. The program itself
// (path, arguments, environment, working directory, standard streams) is
// described by the *exec.Cmd that Runtime.Prepare rewrites.
type Spec struct {
	Filesystem Filesystem
	Network    NetworkMode
	Limits     Limits

	// Proxy receives the listening socket that carries the sandbox's
	// outbound connections when Network is NetworkFiltered (a TCP socket on
	// the sandbox's own loopback, created inside its network namespace). It
	// is called once, in a goroutine of its own, before the program starts;
	// it owns the socket and serves it until the sandbox ends. (An *os.File
	// rather than a net.Listener keeps package net, which every sandbox's
	// init would otherwise have to initialise, out of the runtimes.)
	Proxy func(l *os.File)
	// ProxyPort is the loopback port the proxy listens on inside the
	// sandbox; 0 picks the default.
	ProxyPort int
	// AllowUnixSockets lets the program create AF_UNIX sockets on kernels
	// where Landlock cannot confine them (before ABI 9); it can then reach
	// host services listening on path sockets in readable directories.
	AllowUnixSockets bool
	// Files are written, read-only, into the sandbox's private /run/agentbox
	// (name → content) before the program starts: a CA bundle, say. The
	// reduced tier has no private /run and skips them.
	Files map[string][]byte
	// AllowReduced lets the runtime run without the isolation layers this
	// machine lacks (the warn fallback) instead of refusing; Layers says what
	// was applied.
	AllowReduced bool
	// Hostname is the sandbox's host name; empty picks "agentbox".
	Hostname string
}

// FilesDir is where Spec.Files appear inside a sandbox.
const FilesDir = "/run/agentbox"

// Runtime starts sandboxed processes.
type Runtime interface {
	// Name is the runtime's name ("native", "gvisor", ...).
	Name() string
	// Prepare rewrites cmd, whose Path, Args, Env, Dir and standard streams
	// describe the program, so that starting it runs the program inside a
	// sandbox built from spec. The caller starts and waits for cmd as usual,
	// and closes the Handle when done with it.
	Prepare(spec *Spec, cmd *exec.Cmd) (Handle, error)
	// Start starts prog in a sandbox built from spec and returns once it
	// runs inside (or the sandbox failed: an error wrapping ErrSetup or
	// ErrUnavailable). ctx bounds the start only.
	Start(ctx context.Context, spec *Spec, prog *Program) (Process, error)
	// Close releases what the runtime keeps between sandboxes.
	Close() error
}

// Program is what runs inside a sandbox.
type Program struct {
	Path string   // looked up in the sandbox's PATH when it has no slash
	Args []string // argv, including argv[0]
	Env  []string
	Dir  string
	// Stdin, Stdout and Stderr are the program's standard streams; nil
	// means /dev/null.
	Stdin, Stdout, Stderr *os.File
	// Terminal gives the program a new pseudo-terminal of the sandbox's
	// own as its standard streams and controlling terminal (Stdin, Stdout
	// and Stderr must be nil); Process.Terminal returns its master.
	Terminal bool
	// TerminalSize is the terminal's window size when the program starts,
	// rows then columns; zero leaves the kernel's default (0x0).
	TerminalSize [2]uint16
}

// Process is a program Start runs in a sandbox.
type Process interface {
	// Pid is the host pid of the sandbox's outermost process.
	Pid() int
	// Layers lists the isolation layers applied.
	Layers() []string
	// Degraded lists the layers of Layers that say the policy was not
	// fully enforced (the warn fallback ran without something it needs);
	// empty for a full sandbox.
	Degraded() []string
	// Started returns when the program was started inside the sandbox
	// (zero before it was).
	Started() time.Time
	// Signal forwards sig to the program's process group.
	Signal(sig os.Signal) error
	// Kill ends the sandbox's whole process tree at once. Before the
	// caller has started cmd, it makes the init exit, when started, without
	// running the program.
	Kill() error
	// Terminal returns the master side of the program's terminal
	// (Program.Terminal), nil without one. The caller owns it from then on:
	// it carries the program's output and takes its input, and reads fail
	// with EIO once no process of the sandbox holds the terminal.
	Terminal() *os.File
	// Wait waits for the program to end.
	Wait() (ExitStatus, error)
	// Close releases what the sandbox holds.
	Close() error
}

// Handle follows one prepared sandbox.
type Handle interface {
	// Ready waits until the program has started inside the sandbox, or the
	// sandbox failed to build (an error wrapping ErrSetup or ErrUnavailable).
	// It may be called before cmd.Start: it waits for the init to report.
	Ready(ctx context.Context) error
	// Layers lists the isolation layers applied.
	Layers() []string
	// Degraded lists the layers of Layers that say the policy was not
	// fully enforced (the warn fallback ran without something it needs);
	// empty for a full sandbox.
	Degraded() []string
	// Kill ends the sandbox's whole process tree at once. Before the
	// caller has started cmd, it makes the init exit, when started, without
	// running the program.
	Kill() error
	// ExitStatus decodes the state of the finished cmd into the program's
	// own status.
	ExitStatus(state *os.ProcessState) ExitStatus
	// Close releases what the sandbox holds (proxy listener, cgroup,
	// placeholders). It does not wait for the program.
	Close() error
}

// ExitStatus is how a sandboxed program ended.
type ExitStatus struct {
	Code   int            // exit code; 128+N when killed by signal N
	Signal syscall.Signal // the signal that ended it, or 0
	// MemoryLimitHit is set when the kernel killed a process of the sandbox
	// for exceeding its memory limit (cgroup runtimes only).
	MemoryLimitHit bool
	// Stopped, when set, says why the runtime ended the sandbox itself
	// while the program ran: a mount that kept a path hidden or read-only
	// was taken away by the host (Code is then 137).
	Stopped string
}

// Errors a runtime returns; callers branch on them with errors.Is.
var (
	// ErrUnavailable reports that an isolation layer the Spec needs is not
	// available on this machine.
	ErrUnavailable = errors.New("sandbox layer unavailable")
	// ErrSetup reports that building the sandbox failed.
	ErrSetup = errors.New("sandbox setup failed")
	// ErrClosed reports a start on a runtime that its owner has closed.
	ErrClosed = errors.New("runtime closed")
)

// SetupError is a failure to build the sandbox or to start the program in
// it. It wraps ErrSetup, or ErrUnavailable when a kernel feature is missing.
type SetupError struct {
	Stage string // e.g. "mount: mask-dir /home/u/.ssh", "landlock", "exec", "workdir"
	Msg   string
	// ExitCode is the status a shell would give: 127 for a program that was
	// not found, 126 for one that cannot be executed, 125 otherwise.
	ExitCode    int
	Unavailable bool
}

func (e *SetupError) Error() string {
	kind := ErrSetup
	if e.Unavailable {
		kind = ErrUnavailable
	}
	return fmt.Sprintf("%v: %s: %s", kind, e.Stage, e.Msg)
}

// Unwrap lets errors.Is match ErrSetup or ErrUnavailable.
func (e *SetupError) Unwrap() error {
	if e.Unavailable {
		return ErrUnavailable
	}
	return ErrSetup
}

// Check is one line of a capability report (agentbox doctor).
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Required checks must pass for the strict default policy to run.
	Required bool `json:"required"`
}
