package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxEntryBytes bounds the length of one entry's line; Append refuses larger
// events.
const MaxEntryBytes = 1 << 20

// ErrCorrupt reports a log whose last entry cannot be read, so that a writer
// cannot continue its chain. Run Verify to find out what happened.
var ErrCorrupt = errors.New("audit: log corrupt")

// tail describes the end of a log file.
type tail struct {
	id   uint64 // id of the last complete entry, 0 if none
	hash string // its hash, Genesis if none
	end  int64  // offset just past the last complete line
	last []byte // the last complete line, without its newline
	torn []byte // bytes after the last newline: a line cut short
	// tornEntry is set when the torn bytes are in fact a whole entry that
	// continues the chain and only lacks its newline.
	tornEntry *parsedEntry
	// hashMismatch is set when the last entry's content does not match its
	// hash field (it was edited).
	hashMismatch bool
}

// readTail reads backwards from size to the last complete entry.
func readTail(r io.ReaderAt, size int64) (tail, error) {
	t := tail{hash: Genesis}
	if size == 0 {
		return t, nil
	}
	const first = 64 << 10
	for w := int64(first); ; w *= 2 {
		w = min(w, size)
		buf := make([]byte, w)
		if _, err := r.ReadAt(buf, size-w); err != nil {
			return t, fmt.Errorf("audit: read tail: %w", err)
		}
		lastNL := bytes.LastIndexByte(buf, '\n')
		if lastNL < 0 && w < size {
			if w > 2*MaxEntryBytes {
				return t, fmt.Errorf("%w: last line is longer than %d bytes", ErrCorrupt, MaxEntryBytes)
			}
			continue
		}
		t.torn = buf[lastNL+1:]
		t.end = size - int64(len(t.torn))
		if lastNL < 0 { // the whole file is one unterminated line
			t.checkTorn()
			return t, nil
		}
		prevNL := bytes.LastIndexByte(buf[:lastNL], '\n')
		if prevNL < 0 && w < size {
			if w > 2*MaxEntryBytes {
				return t, fmt.Errorf("%w: last line is longer than %d bytes", ErrCorrupt, MaxEntryBytes)
			}
			continue
		}
		line := buf[prevNL+1 : lastNL]
		v, err := parseObject(line)
		if err != nil {
			return t, fmt.Errorf("%w: last entry: %w", ErrCorrupt, err)
		}
		pe, err := entryFields(v)
		if err != nil {
			return t, fmt.Errorf("%w: last entry: %w", ErrCorrupt, err)
		}
		if h, _ := entryHash(pe.obj, nil); h != pe.hash {
			t.hashMismatch = true
		}
		t.id, t.hash, t.last = pe.id, pe.hash, line
		t.checkTorn()
		return t, nil
	}
}

// checkTorn decides whether the torn bytes are a complete entry that only
// lacks its newline.
func (t *tail) checkTorn() {
	if len(t.torn) == 0 {
		return
	}
	v, err := parseObject(t.torn)
	if err != nil {
		return
	}
	pe, err := entryFields(v)
	if err != nil {
		return
	}
	if pe.follows(t.id+1, t.hash) {
		t.tornEntry = &pe
	}
}

// follows reports whether pe is entry id of a chain whose previous entry's
// hash is prev, with its own hash right: the test a line lacking its
// newline must pass to count as an entry rather than a torn line (see
// Verify, Query and Open).
func (pe *parsedEntry) follows(id uint64, prev string) bool {
	h, _ := entryHash(pe.obj, nil)
	return h == pe.hash && pe.id == id && pe.prev == prev
}
