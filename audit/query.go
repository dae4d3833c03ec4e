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

// Query returns the events of the log at path that match f, oldest first.
// It reads without verifying (use Verify for that); a torn last line is
// skipped, any other unreadable line is an error naming it.
func Query(path string, f Filter) ([]Event, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("audit: %s is %s, not an audit log file", path, fileKind(fi.Mode()))
	}
	r := bufio.NewReaderSize(file, 256<<10)
	var out []Event
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("audit: %w", err) // names the path
		}
		eof := err != nil
		if len(line) == 0 && eof {
			break
		}
		line, terminated := bytes.CutSuffix(line, []byte{'\n'})
		e, perr := decodeLine(line)
		if perr != nil {
			if !terminated {
				break // torn tail: a writer crashed mid-append
			}
			return nil, fmt.Errorf("%w: %s: line %d: %w (run agentbox verify)", ErrBadLine, path, n, perr)
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
	return out, nil
}

func decodeLine(line []byte) (Event, error) {
	v, err := parseObject(line)
	if err != nil {
		return Event{}, err
	}
	pe, err := entryFields(v)
	if err != nil {
		return Event{}, err
	}
	return toEvent(pe)
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
