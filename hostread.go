package agentbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// agentbox reads, unconfined on the host, small files a command may have
// shaped: the config, commondir and gitlink files of the repositories in
// its writable roots. A command can make any of them a FIFO (an open
// blocks until a writer comes: the caller's Exec would never return), a
// socket or a device, or a sparse file of many GiB that costs it nothing
// (read whole, the host process runs out of memory). So every such read
// opens without blocking, takes regular files only, and reads at most
// hostReadMax bytes: a larger file is refused unread, and the callers
// judge what they could not read as risky.

// hostReadMax bounds what one host-side read of a file in a writable root
// takes: far more than any git config, commondir or gitlink file git
// writes.
const hostReadMax = 1 << 20

// detailMax bounds the part of a violation's Detail taken from a file's
// content: the caller, the audit log and the notices get the start.
const detailMax = 200

var (
	errNotRegular = errors.New("not a regular file")
	errPseudoFile = errors.New("a file of a pseudo file system, not read")
	errTooLarge   = fmt.Errorf("larger than %d bytes, not read", hostReadMax)
)

// readBounded reads the file f, opened without blocking, if it is a
// regular file of at most hostReadMax bytes (the size is checked again by
// the read, for a file that grows meanwhile), not of a pseudo file system
// (pseudoFileSystem: /proc/kmsg's reads consume and block). It closes f.
func readBounded(f *os.File) ([]byte, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: f.Name(), Err: errNotRegular}
	}
	if name, ok := pseudoFileSystem(f); ok {
		return nil, &os.PathError{Op: "read", Path: f.Name(), Err: fmt.Errorf("%w (%s)", errPseudoFile, name)}
	}
	if fi.Size() > hostReadMax {
		return nil, &os.PathError{Op: "read", Path: f.Name(), Err: errTooLarge}
	}
	b, err := io.ReadAll(io.LimitReader(f, hostReadMax+1))
	if err == nil && len(b) > hostReadMax {
		return nil, &os.PathError{Op: "read", Path: f.Name(), Err: errTooLarge}
	}
	return b, err
}

// clipDetail is s, cut to detailMax bytes (on a character boundary) with a
// marker saying how long it was, for a Detail built from a file's content.
func clipDetail(s string) string {
	if len(s) <= detailMax {
		return s
	}
	cut := detailMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes in all)", s[:cut], len(s))
}
