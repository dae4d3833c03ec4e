package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// SyncMode says when appended events reach the disk.
type SyncMode int

const (
	// SyncGroup (the default) makes Append return once its event is
	// fsynced; concurrent Appends share one fsync (group commit).
	SyncGroup SyncMode = iota
	// SyncEach writes and fsyncs every event on its own: the slow
	// baseline, for comparison and for callers that want no batching.
	SyncEach
	// SyncNone makes Append return once its event is written to the file
	// (the page cache); it is fsynced at checkpoints, Flush and Close.
	SyncNone
)

// DefaultCheckpointEvery is the default interval, in entries, of signed
// checkpoints. A log rewritten and re-chained without the key is localised
// to within this many entries.
const DefaultCheckpointEvery = 1000

// DefaultQueueSize is the default number of events that may wait to be
// written before Append and AppendAsync block.
const DefaultQueueSize = 1 << 16

// maxBatch bounds the events written with one write(2).
const maxBatch = 4096

// Options configure Open.
type Options struct {
	// CheckpointEvery signs a checkpoint whenever the log's size crosses a
	// multiple of it. Zero means DefaultCheckpointEvery; negative disables
	// periodic checkpoints (Close still signs one).
	CheckpointEvery int
	// StateDir holds the signing key and the copies of checkpoints; empty
	// means paths.StateDir().
	StateDir string
	// Sync says when events reach the disk; see SyncMode.
	Sync SyncMode
	// QueueSize bounds the events waiting to be written; zero means
	// DefaultQueueSize.
	QueueSize int
	// Logger receives warnings (a repaired torn tail, a failed async
	// append); nil means slog.Default().
	Logger *slog.Logger
}

// Log appends events to one audit log file. Its methods are safe for
// concurrent use; other processes may append to the same file at the same
// time through their own Log.
type Log struct {
	path      string
	abs       string // absolute, symlinks resolved
	f         *os.File
	opts      Options
	log       *slog.Logger
	signer    note.Signer
	stateCkpt string // the state-directory copy of the checkpoints

	mu       sync.Mutex
	work     *sync.Cond // queue not empty, or closing
	space    *sync.Cond // queue below QueueSize
	queue    []*request
	closing  bool
	asyncErr error
	done     chan struct{} // the committer has exited
	closed   chan struct{} // Close has finished; closeErr is set
	closeErr error

	// Owned by the committer goroutine (and by Close after it exits).
	known      int64 // file size after our last write; -1: re-read the tail
	lastID     uint64
	lastHash   string
	lastSigned uint64 // size of the last checkpoint this Log signed
	wrote      bool   // this Log appended at least one entry
	buf, hbuf  []byte
	spare      []*request

	stats struct{ events, batches, syncs, checkpoints atomic.Uint64 }
}

// Stats counts what a Log has done since Open.
type Stats struct {
	Events      uint64 // entries written (including repair alerts)
	Batches     uint64 // write(2) calls that wrote them
	Syncs       uint64 // fsyncs of the log
	Checkpoints uint64 // checkpoints signed
}

// Stats returns the Log's counters; Events/Batches is the mean group size.
func (l *Log) Stats() Stats {
	return Stats{Events: l.stats.events.Load(), Batches: l.stats.batches.Load(),
		Syncs: l.stats.syncs.Load(), Checkpoints: l.stats.checkpoints.Load()}
}

// request is one event (or a flush barrier, ms == nil) waiting to be written.
type request struct {
	ms   []member
	id   uint64      // assigned by the committer
	done chan result // nil for AppendAsync
	res  result
}

type result struct {
	ms  []member // the entry as written
	err error
}

// Open opens (creating it with mode 0600 if needed) the log at path for
// appending, continuing its chain. It creates the signing key in the state
// directory on first use. It fails with ErrCorrupt if the last entry of the
// file cannot be read.
func Open(path string, opts Options) (*Log, error) {
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	l := &Log{path: path, opts: opts, log: opts.Logger, known: -1, done: make(chan struct{}), closed: make(chan struct{})}
	if l.log == nil {
		l.log = slog.Default()
	}
	dir, err := auditDir(opts.StateDir, true)
	if err != nil {
		return nil, err
	}
	if l.signer, err = loadOrCreateSigner(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	l.f = f
	abs, err := canonicalPath(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.abs = abs
	l.stateCkpt = stateCheckpointPath(dir, abs)
	// Read the tail now so that a corrupt log fails Open, not the first
	// Append; a torn tail is repaired and the repair logged.
	alert, err := l.withLock(func() (*request, error) { return l.refresh() })
	if err != nil {
		f.Close()
		return nil, err
	}
	l.work = sync.NewCond(&l.mu)
	l.space = sync.NewCond(&l.mu)
	if alert != nil {
		l.queue = append(l.queue, alert)
	}
	go l.committer()
	return l, nil
}

// openAppend opens (creating it) a log or checkpoint file for appending. It
// refuses a symlink or anything but a regular file, and syncs the directory
// so that a new file survives a crash.
func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|openNoFollow, 0o600)
	if isSymlinkErr(err) {
		return nil, fmt.Errorf("audit: %s is a symbolic link; refusing to write through it", path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("audit: %s is not a regular file", path)
	}
	if err == nil && fi.Size() == 0 {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Path returns the path the log was opened with.
func (l *Log) Path() string { return l.path }

// Append adds e to the log and returns when it is written (and, unless the
// Sync mode is SyncNone, on disk). If ctx ends first Append returns its
// error, but the event may still be written.
func (l *Log) Append(ctx context.Context, e Event) error {
	_, err := l.commitEvent(ctx, e, false)
	return err
}

// Commit is Append returning the event as stored: with its ID, hashes and
// timestamp.
func (l *Log) Commit(ctx context.Context, e Event) (Event, error) {
	return l.commitEvent(ctx, e, true)
}

func (l *Log) commitEvent(ctx context.Context, e Event, wantEvent bool) (Event, error) {
	r, err := l.prepare(e, true)
	if err != nil {
		return Event{}, err
	}
	if err := l.enqueue(ctx, r); err != nil {
		return Event{}, err
	}
	select {
	case res := <-r.done:
		if res.err != nil || !wantEvent {
			return Event{}, res.err
		}
		return toEvent(parsedEntry{obj: res.ms, hash: res.ms[1].val.str, prev: res.ms[2].val.str, id: r.id})
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// AppendAsync queues e and returns without waiting for the write, unless
// QueueSize events are already waiting (then it waits for room: an audit
// log does not drop events). Write errors are logged, and returned by Err
// and Close. Flush or Close make queued events durable.
func (l *Log) AppendAsync(e Event) error {
	r, err := l.prepare(e, false)
	if err != nil {
		return err
	}
	return l.enqueue(context.Background(), r)
}

// Flush returns when every event queued before it is on disk.
func (l *Log) Flush(ctx context.Context) error {
	r := &request{done: make(chan result, 1)}
	if err := l.enqueue(ctx, r); err != nil {
		return err
	}
	select {
	case res := <-r.done:
		return res.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Err returns the first error of an AppendAsync write, if any.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asyncErr
}

func (l *Log) prepare(e Event, wait bool) (*request, error) {
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now()
	}
	ms, err := e.members()
	if err != nil {
		return nil, err
	}
	r := &request{ms: ms}
	if wait {
		r.done = make(chan result, 1)
	}
	return r, nil
}

func (l *Log) enqueue(ctx context.Context, r *request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.queue) >= l.opts.QueueSize && !l.closing {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.space.Wait()
	}
	if l.closing {
		return ErrClosed
	}
	l.queue = append(l.queue, r)
	if len(l.queue) == 1 {
		l.work.Signal()
	}
	return nil
}

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
func (l *Log) withLock(fn func() (*request, error)) (*request, error) {
	if err := lockFile(l.f); err != nil {
		return nil, fmt.Errorf("audit: lock %s: %w", l.path, err)
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
		if _, err := l.withLock(func() (*request, error) { return nil, l.writeLocked(batch) }); err != nil {
			l.known = -1
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
	var alert *request
	if size != l.known {
		if alert, err = l.refresh(); err != nil {
			return err
		}
		size = l.known
	}
	id, prev := l.lastID, l.lastHash
	buf := l.buf[:0]
	write := func(r *request) {
		ms := r.ms
		ms[0].val = numValue(strconv.FormatUint(id+1, 10))
		ms[2].val = strValue(prev)
		var hash string
		hash, l.hbuf = entryHash(ms, l.hbuf)
		ms[1].val = strValue(hash)
		start := len(buf)
		buf = appendJSON(buf, objValue(ms))
		if len(buf)-start > MaxEntryBytes {
			buf = buf[:start]
			r.res.err = fmt.Errorf("%w: entry of %d bytes is larger than %d", ErrInvalidEvent, len(buf)-start, MaxEntryBytes)
			return
		}
		buf = append(buf, '\n')
		id++
		prev = hash
		r.id, r.res.ms = id, ms
	}
	if alert != nil {
		write(alert)
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
	l.wrote = true
	return nil
}

// refresh re-reads the tail of the file (the lock is held). A line cut
// short by a crashed writer is removed, or completed if it is a whole entry
// lacking its newline; either way the returned alert event records it.
func (l *Log) refresh() (*request, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	t, err := readTail(l.f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.path, err)
	}
	if t.hashMismatch {
		l.log.Warn("audit: the last entry does not match its hash; continuing the chain from it (run agentbox verify)", "log", l.path, "id", t.id)
	}
	l.lastID, l.lastHash, l.known = t.id, t.hash, fi.Size()
	if len(t.torn) == 0 {
		return nil, nil
	}
	var reason string
	if pe := t.tornEntry; pe != nil {
		if _, err := l.f.Write([]byte{'\n'}); err != nil {
			return nil, fmt.Errorf("audit: complete the last line of %s: %w", l.path, err)
		}
		l.lastID, l.lastHash, l.known = pe.id, pe.hash, fi.Size()+1
		reason = fmt.Sprintf("entry %d lacked its final newline (a writer crashed mid-append); newline added", pe.id)
	} else {
		if err := l.f.Truncate(t.end); err != nil {
			return nil, fmt.Errorf("audit: remove the torn last line of %s: %w", l.path, err)
		}
		l.known = t.end
		reason = fmt.Sprintf("removed %d bytes of a line cut short after entry %d (a writer crashed mid-append)", len(t.torn), t.id)
	}
	l.log.Warn("audit: repaired torn tail", "log", l.path, "detail", reason)
	ev := Event{EventType: Alert, Allowed: true, Resource: l.path, Rule: "audit.torn_tail", Reason: reason}
	return l.prepare(ev, false)
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
	errBeside := appendRecord(l.path+CheckpointSuffix, rec, "")
	errState := appendRecord(l.stateCkpt, rec, fmt.Sprintf("# checkpoints of %q\n", l.abs))
	if err := errors.Join(errBeside, errState); err != nil {
		return err
	}
	l.lastSigned = size
	l.stats.checkpoints.Add(1)
	return nil
}

// Close writes every queued event, fsyncs the log, signs a checkpoint of its
// head and closes the file. Everything appended is on disk when it returns.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		<-l.closed
		return l.closeErr
	}
	l.closing = true
	l.work.Broadcast()
	l.space.Broadcast()
	l.mu.Unlock()
	<-l.done

	var errs []error
	l.mu.Lock()
	errs = append(errs, l.asyncErr)
	l.mu.Unlock()
	// Sign the head as it is now, which may include other writers' entries.
	alert, err := l.withLock(func() (*request, error) {
		fi, err := l.f.Stat()
		if err != nil || fi.Size() == l.known {
			return nil, err
		}
		return l.refresh()
	})
	errs = append(errs, err)
	if alert != nil {
		_, err = l.withLock(func() (*request, error) { return nil, l.writeLocked([]*request{alert}) })
		errs = append(errs, err)
	}
	errs = append(errs, l.f.Sync())
	if l.wrote {
		errs = append(errs, l.checkpoint(l.lastID, l.lastHash))
	}
	errs = append(errs, l.f.Close())
	l.closeErr = errors.Join(errs...)
	close(l.closed)
	return l.closeErr
}

// String names the mode.
func (m SyncMode) String() string {
	switch m {
	case SyncGroup:
		return "group"
	case SyncEach:
		return "each"
	case SyncNone:
		return "none"
	}
	return fmt.Sprintf("SyncMode(%d)", int(m))
}
