package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// Query returns the events of the log at path that match f, oldest first.
// It reads without verifying (use Verify for that); a torn last line is
// skipped, any other unreadable line is an error naming it.
func Query(path string, f Filter) ([]Event, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 256<<10)
	var out []Event
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("audit: read %s: %w", path, err)
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
			return nil, fmt.Errorf("audit: %s: line %d: %w (run agentbox verify)", path, n, perr)
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
