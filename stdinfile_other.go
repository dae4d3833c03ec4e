//go:build !unix

package agentbox

import (
	"errors"
	"os"
)

// stdinFile: no sandbox runs here (see MaybeSandboxInit), and streamOf
// never asks for one.
type stdinFile struct {
	owned  *os.File
	stream bool
}

var errNotSeekable = errors.New("not seekable")

func newStdinFile(*os.File) (*stdinFile, *os.File, error) {
	return nil, nil, errors.New("agentbox: no sandbox on this platform")
}

func newStdinStream(*os.File) (*stdinFile, *os.File, error) {
	return nil, nil, errors.New("agentbox: no sandbox on this platform")
}

func (*stdinFile) finish() {}

func newStdinPipe(*os.File) (*stdinFile, *os.File, error) {
	return nil, nil, errors.New("agentbox: no sandbox on this platform")
}

func (*stdinFile) sharesWith(*os.File) bool { return false }

// offsetWriter: sharesWith is never true here.
type offsetWriter struct {
	f *os.File
	s *stdinFile
}

func (w *offsetWriter) Write(p []byte) (int, error) { return w.f.Write(p) }
