package agentbox

import (
	"io"
	"os"
	"os/exec"
)

// streamKind is what a file the caller hands the program as a standard
// stream is (streamOf). The program gets the file's own descriptor only
// where nothing it can do through it reaches beyond its policy:
//
//   - a character device (a terminal, /dev/null) goes as it is, and so
//     does an anonymous pipe of a caller other than root (a terminal's
//     state is put back after the run: see sharedFile);
//   - a socket is relayed through a pipe of agentbox's: a socket belongs
//     to the network namespace it was made in, and the program could
//     disconnect it and connect it anywhere the host can reach, or send
//     from it to any address;
//   - so is an anonymous pipe when the caller is root (the sandbox runs
//     as nobody): its modes are its creator's, and it may carry other
//     processes' bytes;
//   - so are a regular file and a named FIFO: their descriptor is the
//     host's, outside the sandbox's mounts, and the program, as their
//     owner, could change their mode, owner, times and extended
//     attributes through it (chmod 0666 of a private file redirected in);
//   - anything else is refused: a directory's descriptor would let the
//     program open names relative to it in the host's mounts, past the
//     sandbox's masks and read-only binds; a block device, a link opened
//     with O_PATH or an anonymous inode (eventfd, pidfd) is no stream.
type streamKind int

const (
	streamDevice streamKind = iota + 1
	streamPipe
	streamFIFO
	streamSocket
	streamFile
)

// relayed returns a copy of the caller's f for agentbox to relay through a
// pipe of its own, nil when f goes to the program as it is (streamKind).
// The copy lets the caller close f after Start, as with os/exec.
func relayed(f *os.File) (*os.File, error) {
	kind, err := streamOf(f)
	if err != nil {
		return nil, configErr("a standard stream", "%v", err)
	}
	switch kind {
	case streamDevice:
		return nil, nil
	case streamPipe:
		if os.Geteuid() != 0 {
			return nil, nil
		}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var dup *os.File
	var dupErr error
	if err := rc.Control(func(fd uintptr) { dup, dupErr = dupCloexec(fd, f.Name()) }); err != nil {
		return nil, err
	}
	return dup, dupErr
}

// wrapStreams makes the standard streams of a wrapped command what
// streamKind allows: a socket or regular file goes to os/exec as a plain
// reader or writer, which it copies through a pipe of its own; a file that
// is no stream refuses the call. A socket as Stdin is refused: os/exec's
// Wait would wait for its end of input, which may never come after the
// command exits; use Start, which relays it.
func wrapStreams(cmd *exec.Cmd) error {
	if f, ok := cmd.Stdin.(*os.File); ok {
		kind, err := streamOf(f)
		switch {
		case err != nil:
			return configErr("Wrap", "cmd.Stdin: %v", err)
		case kind == streamSocket:
			return configErr("Wrap", "cmd.Stdin is a socket, which the command could connect anywhere the host can reach; pass a pipe, or use Start, which relays it")
		case kind == streamFile:
			cmd.Stdin = struct{ io.Reader }{f}
		}
	}
	for _, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		f, ok := (*w).(*os.File)
		if !ok {
			continue
		}
		kind, err := streamOf(f)
		switch {
		case err != nil:
			return configErr("Wrap", "cmd.Stdout or cmd.Stderr: %v", err)
		case kind == streamSocket || kind == streamFile:
			*w = struct{ io.Writer }{f}
		}
	}
	return nil
}
