package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Filter selects events for Query. Zero fields select everything.
type Filter struct {
	// DenyOnly keeps only events with Allowed false.
	DenyOnly bool
	// Since keeps events at or after this time.
	Since time.Time
	// Agent keeps events whose agent name or agent id equals it.
	Agent string
	// Type keeps events of this event type.
	Type string
	// Limit keeps only the most recent Limit matches (0: all).
	Limit int
}

// Match reports whether e passes the filter (Limit aside).
func (f Filter) Match(e Event) bool {
	switch {
	case f.DenyOnly && e.Allowed,
		!f.Since.IsZero() && e.Timestamp.Before(f.Since),
		f.Agent != "" && e.AgentName != f.Agent && e.AgentID != f.Agent,
		f.Type != "" && e.EventType != f.Type:
		return false
	}
	return true
}

// ErrBadLine reports a line of a log that is not a valid audit entry.
var ErrBadLine = errors.New("audit: not an audit entry")

// maxBadLines bounds the bad lines a BadLinesError describes one by one.
const maxBadLines = 100

// BadLine is a line of a log that is not a valid audit entry.
type BadLine struct {
	Line int // from 1
	Err  error
}

// BadLinesError is returned by Query, together with the events of every
// line it could read, when some lines of the log are not entries. It
// matches ErrBadLine.
type BadLinesError struct {
	Path string
	// Lines are the first bad lines (at most 100); Count counts them all.
	Lines []BadLine
	Count int
}

func (e *BadLinesError) Error() string {
	first := e.Lines[0]
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (and %d more)", e.Count-1)
	}
	return fmt.Sprintf("audit: %s: line %d is not an audit entry: %v%s; run agentbox verify %s", e.Path, first.Line, first.Err, more, e.Path)
}

// Is makes errors.Is(err, ErrBadLine) true.
func (e *BadLinesError) Is(target error) bool { return target == ErrBadLine }

// Query returns the events of the log at path that match f, oldest first.
// It reads without verifying (use Verify for that), but takes the last
// line for a torn one, and skips it, by Verify's rule: when it lacks its
// newline and is not the next entry of the chain (it does not parse, its
// hash is wrong or it does not link), so that it never lists an event
// Verify does not count. Lines that are not entries are skipped too, and
// reported by a *BadLinesError returned with the events of the other
// lines.
func Query(path string, f Filter) ([]Event, error) {
	file, err := openRegular(path, os.O_RDONLY, 0, "an audit log file")
	if err != nil {
		return nil, err
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 256<<10)
	var out []Event
	bad := &BadLinesError{Path: path}
	prev := Genesis // the hash field of the last line that is an entry
	for n := 1; ; n++ {
		line, long, err := readLine(r, maxQueryLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("audit: %w", err) // names the path
		}
		eof := err != nil
		if len(line) == 0 && !long && eof {
			break
		}
		line, terminated := bytes.CutSuffix(line, []byte{'\n'})
		pe, perr := decodeEntry(line)
		if perr == nil && !terminated && !pe.follows(uint64(n), prev) {
			break // torn tail: a writer crashed mid-append
		}
		var e Event
		if perr == nil {
			prev = pe.hash
			e, perr = toEvent(pe)
		}
		if long {
			perr = fmt.Errorf("a line longer than %d bytes, which no entry is", maxQueryLine)
			terminated = !eof
		}
		if perr != nil {
			if !terminated {
				break // torn tail: a writer crashed mid-append
			}
			if bad.Count++; len(bad.Lines) < maxBadLines {
				bad.Lines = append(bad.Lines, BadLine{Line: n, Err: perr})
			}
			continue
		}
		if f.Match(e) {
			out = append(out, e)
			if f.Limit > 0 && len(out) > 2*f.Limit {
				out = append(out[:0], out[len(out)-f.Limit:]...)
			}
		}
		if eof {
			break
		}
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	if bad.Count > 0 {
		return out, bad
	}
	return out, nil
}

// maxQueryLine bounds the line Query holds: longer than any entry (see
// MaxEntryBytes), so that a line beyond it is a bad line, read past
// without being kept.
const maxQueryLine = 2 * MaxEntryBytes

// readLine reads the next line, with its newline, of at most max bytes;
// of a longer one it keeps nothing, reads on to its end and reports long.
func readLine(r *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(frag) > max {
				long, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

func decodeEntry(line []byte) (parsedEntry, error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return parsedEntry{}, errors.New("blank line")
	}
	v, err := parseObject(line)
	if err != nil {
		return parsedEntry{}, err
	}
	return entryFields(v)
}

// fileKind names what a non-regular file is, for error messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
