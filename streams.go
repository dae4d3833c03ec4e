package agentbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
)

// streamKind is what a file the caller hands the program as a standard
// stream is (streamOf). The program gets the file's own descriptor only
// where nothing it can do through it reaches beyond its policy:
//
//   - a character device (a terminal, /dev/null) goes as it is, and so
//     does an anonymous pipe of a caller other than root (their state is
//     put back after the run: see sharedFile);
//   - a socket is relayed through a pipe of agentbox's: a socket belongs
//     to the network namespace it was made in, and the program could
//     disconnect it and connect it anywhere the host can reach, or send
//     from it to any address;
//   - so is an anonymous pipe when the caller is root (the sandbox runs
//     as nobody): its modes are its creator's, and it may carry other
//     processes' bytes;
//   - so is a regular file (as stdin, by stdinFile): its descriptor is the
//     host's, outside the sandbox's mounts, and the program, as its owner,
//     could change its mode, owner, times and extended attributes through
//     it (chmod 0666 of a private file redirected in); a named FIFO goes
//     as it is (reading it ahead would take from the caller what the
//     program never reads), its permissions and owner put back after;
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

// relayed returns a copy of the caller's f, of kind, for agentbox to
// relay through a pipe of its own, nil when f goes to the program as it is
// (streamKind). The copy lets the caller close f after Start, as with
// os/exec. A regular file as stdin is relayed by stdinFile instead.
func relayed(f *os.File, kind streamKind) (*os.File, error) {
	switch kind {
	case streamDevice, streamFIFO:
		return nil, nil
	case streamPipe:
		if os.Geteuid() != 0 {
			return nil, nil
		}
	}
	fd, err := dupFD(f)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// sameStream reports whether a and b are files open on one open file
// description (os.Stdout and os.Stderr after 2>&1): the program must then
// get one pipe for both, or the order between them is lost.
func sameStream(a, b io.Writer) bool {
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	return ok1 && ok2 && sameDescription(fa, fb)
}

// wrapStreams makes the standard streams of a wrapped command what
// streamKind allows: a regular file as Stdin goes through a stdinFile
// (returned, to finish once the command's tree is gone), a socket or
// regular file as Stdout or Stderr to os/exec as a plain writer, which it
// copies through a pipe of its own (one for both when they share an open
// file description); a file that is no stream refuses the call. A socket
// as Stdin is refused: os/exec's Wait would wait for its end of input,
// which may never come after the command exits; use Start, which relays
// it.
func wrapStreams(cmd *exec.Cmd) (*stdinFile, error) {
	// Every stream is judged before anything starts.
	var in streamKind
	if f, ok := cmd.Stdin.(*os.File); ok {
		kind, err := streamOf(f)
		switch {
		case err != nil:
			return nil, configErr("Wrap", "cmd.Stdin: %v", err)
		case kind == streamSocket:
			return nil, configErr("Wrap", "cmd.Stdin is a socket, which the command could connect anywhere the host can reach; pass a pipe, or use Start, which relays it")
		}
		in = kind
	}
	outs := []*io.Writer{&cmd.Stdout, &cmd.Stderr}
	var plain [2]bool
	for i, w := range outs {
		if f, ok := (*w).(*os.File); ok {
			kind, err := streamOf(f)
			if err != nil {
				return nil, configErr("Wrap", "cmd.Stdout or cmd.Stderr: %v", err)
			}
			plain[i] = kind == streamSocket || kind == streamFile
		}
	}
	same := sameStream(cmd.Stdout, cmd.Stderr)
	for i, w := range outs {
		if plain[i] {
			*w = struct{ io.Writer }{*w}
		}
	}
	if same {
		cmd.Stderr = cmd.Stdout // one pipe for both, as os/exec does for one writer
	}
	if in != streamFile {
		return nil, nil
	}
	f := cmd.Stdin.(*os.File)
	s, rd, err := newStdinFile(f)
	switch {
	case errors.Is(err, errNotSeekable):
		cmd.Stdin = struct{ io.Reader }{f} // a file of /proc or /sys: os/exec copies it
		return nil, nil
	case err != nil:
		return nil, err
	}
	s.owned, cmd.Stdin = rd, rd
	return s, nil
}
