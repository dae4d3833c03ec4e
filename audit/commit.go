package audit

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"
)

// committer writes queued events in batches until Close.
func (l *Log) committer() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.closing {
			l.work.Wait()
		}
		if len(l.queue) == 0 {
			l.mu.Unlock()
			return
		}
		if len(l.queue) < 8 && !l.closing {
			// Let runnable appenders queue up before paying for a batch.
			l.mu.Unlock()
			runtime.Gosched()
			l.mu.Lock()
		}
		n := min(len(l.queue), maxBatch)
		if l.opts.Sync == SyncEach {
			n = 1
		}
		batch := append(l.spare[:0], l.queue[:n]...)
		clear(l.queue[:n])
		l.queue = append(l.queue[:0], l.queue[n:]...)
		l.space.Broadcast()
		l.mu.Unlock()

		err := l.commit(batch)
		for _, r := range batch {
			if r.res.err == nil {
				r.res.err = err
			}
			switch {
			case r.done != nil:
				r.done <- r.res
			case r.res.err != nil:
				l.log.Error("audit: append failed", "log", l.path, "err", r.res.err)
				l.mu.Lock()
				if l.asyncErr == nil {
					l.asyncErr = r.res.err
				}
				l.mu.Unlock()
			}
		}
		clear(batch)
		l.spare = batch
	}
}

// withLock runs fn with the file locked.
func (l *Log) withLock(fn func() ([]*request, error)) ([]*request, error) {
	// Writers hold it for one write; anyone who can open the log could
	// hold it for ever.
	if err := lockWithin(l.f, writersWait, l.path); err != nil {
		return nil, err
	}
	r, err := fn()
	if uerr := unlockFile(l.f); err == nil && uerr != nil {
		err = fmt.Errorf("audit: unlock %s: %w", l.path, uerr)
	}
	return r, err
}

// commit writes one batch: under the file lock, re-read the tail if another
// writer changed the file, chain and write the events in one write(2); then
// fsync outside the lock and sign a checkpoint if one is due.
func (l *Log) commit(batch []*request) error {
	before := l.lastID
	flushOnly := true
	for _, r := range batch {
		if r.ms != nil {
			flushOnly = false
		}
	}
	if !flushOnly {
		if _, err := l.withLock(func() ([]*request, error) { return nil, l.writeLocked(batch) }); err != nil {
			l.stale = true
			for _, r := range batch {
				if r.ms != nil {
					l.dropped++
				}
			}
			if l.dropErr == nil {
				l.dropErr = err
			}
			return err
		}
	}
	needSync := l.opts.Sync != SyncNone && !flushOnly
	for _, r := range batch {
		if r.ms == nil {
			needSync = true
		}
	}
	due := l.opts.CheckpointEvery > 0 && l.lastID/uint64(l.opts.CheckpointEvery) > before/uint64(l.opts.CheckpointEvery)
	if needSync || due {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit: sync %s: %w", l.path, err)
		}
		l.stats.syncs.Add(1)
	}
	if due {
		if err := l.checkpoint(l.lastID, l.lastHash); err != nil {
			l.log.Error("audit: checkpoint failed", "log", l.path, "err", err)
		}
	}
	return nil
}

func (l *Log) writeLocked(batch []*request) error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	size := fi.Size()
	var alerts []*request
	if size != l.known || l.stale {
		if alerts, err = l.refresh(); err != nil {
			return err
		}
		size = l.known
	}
	if l.dropped > 0 {
		r, err := l.alertEvent(ruleWriteFailed, fmt.Sprintf("%s could not be written to the log (first: %v); the log lacks them",
			countPhrase(l.dropped, "event"), l.dropErr))
		if err != nil {
			return err
		}
		alerts = append(alerts, r)
	}
	id, prev := l.lastID, l.lastHash
	buf := l.buf[:0]
	last := -1 // where the last line written starts in buf
	write := func(r *request) {
		ms := r.ms
		ms[0].val = numValue(strconv.FormatUint(id+1, 10))
		ms[2].val = strValue(prev)
		var hash string
		hash, l.hbuf = entryHash(ms, l.hbuf)
		ms[1].val = strValue(hash)
		start := len(buf)
		buf = appendJSON(buf, objValue(ms))
		if n := len(buf) - start; n > MaxEntryBytes {
			buf = buf[:start]
			r.res.err = fmt.Errorf("%w: entry of %d bytes is larger than %d", ErrInvalidEvent, n, MaxEntryBytes)
			return
		}
		buf = append(buf, '\n')
		id++
		prev = hash
		r.id, r.res.ms = id, ms
		last = start
	}
	for _, r := range alerts {
		write(r)
	}
	for _, r := range batch {
		if r.ms != nil {
			write(r)
		}
	}
	l.buf = buf
	if len(buf) == 0 {
		return nil
	}
	if _, err := l.f.Write(buf); err != nil {
		return fmt.Errorf("audit: write %s: %w", l.path, err)
	}
	l.stats.batches.Add(1)
	l.stats.events.Add(id - l.lastID)
	l.known = size + int64(len(buf))
	l.lastID, l.lastHash = id, prev
	l.lastLine = append(l.lastLine[:0], buf[last:]...)
	l.wrote = true
	l.stale, l.dropped, l.dropErr = false, 0, nil
	return nil
}

// refresh re-reads the tail of the file (the lock is held). A line cut
// short by a crashed writer is removed, or completed if it is a whole entry
// lacking its newline; either way an alert event records it. So does a
// change to what this Log wrote or read before (see changedUnder).
func (l *Log) refresh() ([]*request, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var alerts []*request
	alert := func(rule, reason string) error {
		r, err := l.alertEvent(rule, reason)
		alerts = append(alerts, r)
		return err
	}
	if changed, err := l.changedUnder(fi.Size()); err != nil {
		return nil, err
	} else if changed != "" {
		if err := alert(ruleChangedUnderWriter, changed); err != nil {
			return nil, err
		}
	}
	t, err := readTail(l.f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.path, err)
	}
	if t.hashMismatch {
		l.log.Warn("audit: the last entry does not match its hash; continuing the chain from it (run agentbox verify)", "log", l.path, "id", t.id)
	}
	l.lastID, l.lastHash, l.known = t.id, t.hash, fi.Size()
	l.lastLine = append(append(l.lastLine[:0], t.last...), '\n')
	if t.id == 0 {
		l.lastLine = l.lastLine[:0]
	}
	if len(t.torn) == 0 {
		return alerts, nil
	}
	var reason string
	if pe := t.tornEntry; pe != nil {
		if _, err := l.f.Write([]byte{'\n'}); err != nil {
			return nil, fmt.Errorf("audit: complete the last line of %s: %w", l.path, err)
		}
		l.lastID, l.lastHash, l.known = pe.id, pe.hash, fi.Size()+1
		l.lastLine = append(append(l.lastLine[:0], t.torn...), '\n')
		reason = fmt.Sprintf("entry %d lacked its final newline (a writer crashed mid-append); newline added", pe.id)
	} else {
		if err := l.f.Truncate(t.end); err != nil {
			return nil, fmt.Errorf("audit: remove the torn last line of %s: %w", l.path, err)
		}
		l.known = t.end
		reason = fmt.Sprintf("removed %d bytes of a line cut short after entry %d (a writer crashed mid-append)", len(t.torn), t.id)
	}
	if err := alert(ruleTornTail, reason); err != nil {
		return nil, err
	}
	return alerts, nil
}

// checkpoint signs (size, head) and appends it beside the log and to the
// state-directory copy.
func (l *Log) checkpoint(size uint64, head string) error {
	if size == 0 || size <= l.lastSigned {
		return nil
	}
	rec, err := signCheckpoint(l.signer, Checkpoint{Size: size, Head: head, Time: time.Now()})
	if err != nil {
		return err
	}
	errBeside := appendRecord(l.abs+CheckpointSuffix, rec, "", besideWait)
	errState := appendRecord(l.stateCkpt, rec, fmt.Sprintf("# checkpoints of %q\n", l.abs), writersWait)
	if err := errors.Join(errBeside, errState); err != nil {
		return err
	}
	l.lastSigned = size
	l.stats.checkpoints.Add(1)
	return nil
}
