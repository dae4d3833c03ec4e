package audit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/agentbox-dev/agentbox/internal/paths"
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
	abs       string // absolute, symlinks resolved: the path the log and the files beside it are opened by
	f         *os.File
	writers   *os.File // holds the writers' lock shared (see WritersLockSuffix)
	live      *liveMark
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
	known int64 // file size after our last write; -1: re-read the tail
	// stale: a write failed, so re-read the tail before the next one
	// (known and lastLine keep the last good view, which changedUnder
	// checks the file against).
	stale bool
	// dropped counts the events of failed writes since the last write
	// that succeeded, and dropErr is the first failure: the next write
	// says so in the log (ruleWriteFailed).
	dropped    int
	dropErr    error
	lastID     uint64
	lastHash   string
	lastLine   []byte // the file's last entry as this Log wrote or read it, with its newline
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
// file cannot be read. From Open to Close the Log holds a shared lock on the
// file beside the log named by WritersLockSuffix, so that Rotate refuses to
// move the log; Open waits while a Rotate holds it, and fails when the lock
// stays held exclusively for more than 30 seconds.
func Open(path string, opts Options) (l *Log, err error) {
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	l = &Log{path: path, opts: opts, log: opts.Logger, known: -1, done: make(chan struct{}), closed: make(chan struct{})}
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
	made, err := paths.MkdirAll(filepath.Dir(path), 0o700)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	// Nothing is left behind in a place refused: the directories made
	// are removed again if Open fails (those still empty).
	defer func() {
		if err != nil {
			made.Remove()
		}
	}()
	// The log as the kernel reaches it, judged: the log, its lock and its
	// checkpoints are opened by this path, with no link or ".." in it, not
	// by the one given, which could lead elsewhere by the time they are.
	abs, err := locateLog(path)
	if err != nil {
		return nil, err
	}
	l.abs = abs
	// Hold the writers' lock before opening the log, and until Close: a
	// Rotate either finishes before the log is opened or refuses to move
	// it. Hold it alone, if no other writer has it, until the log's end is
	// checked against the signed checkpoints: no writer can then append
	// entries it has not signed yet.
	writers, alone, err := claimWriters(abs, l.log)
	if err != nil {
		return nil, err
	}
	// A new chain where a longer log was signed would leave neither log
	// verifiable: refuse before creating the file.
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := checkNotShrunk(dir, path, 0); err != nil {
			writers.Close()
			return nil, err
		}
	}
	f, err := openAppend(abs)
	if err == nil {
		if err = checkOpened(path, f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		writers.Close()
		return nil, err
	}
	l.f, l.writers = f, writers
	l.stateCkpt = stateCheckpointPath(dir, abs)
	if l.live, err = markLive(l.stateCkpt); err != nil {
		f.Close()
		writers.Close()
		return nil, err
	}
	// Read the tail now so that a corrupt log fails Open, not the first
	// Append; a torn tail is repaired and the repair logged. The length is
	// compared with the signed checkpoints under the same lock: another
	// writer appends under it and signs only after, so no checkpoint can
	// be ahead of what the lock shows.
	alerts, err := l.withLock(func() ([]*request, error) {
		rs, err := l.refresh()
		if err != nil {
			return nil, err
		}
		st, err := readSignedState(dir, path, l.lastID)
		if err != nil {
			return nil, err
		}
		if err := st.shrunk(path, l.lastID); err != nil {
			return nil, err
		}
		// Another holder of the writers' lock may be a writer that has
		// not signed what it wrote yet, if it says so (see liveMark).
		// Checked under the log's lock: a writer marks itself before it
		// appends.
		if l.lastID > st.last && (alone || !l.live.othersLive()) {
			r, err := l.unsignedTail(st.last)
			return append(rs, r), err
		}
		return rs, nil
	})
	if err == nil && alone {
		err = shareWriters(writers, f, abs)
	}
	if err != nil {
		l.live.close()
		f.Close()
		writers.Close()
		return nil, err
	}
	l.work = sync.NewCond(&l.mu)
	l.space = sync.NewCond(&l.mu)
	l.queue = append(l.queue, alerts...)
	go l.committer()
	return l, nil
}

// openAppend opens (creating it) a log or checkpoint file for appending. It
// refuses a symlink or anything but a regular file, and syncs the directory
// so that a new file survives a crash.
func openAppend(path string) (*os.File, error) {
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600, "a regular file")
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
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
	alerts, err := l.withLock(func() ([]*request, error) {
		fi, err := l.f.Stat()
		if err != nil || fi.Size() == l.known && !l.stale {
			return nil, err
		}
		return l.refresh()
	})
	errs = append(errs, err)
	// Events of failed writes are owed an audit.write_failed alert even
	// when nothing follows them (writeLocked adds it).
	if len(alerts) > 0 || err == nil && l.dropped > 0 {
		_, err = l.withLock(func() ([]*request, error) { return nil, l.writeLocked(alerts) })
		errs = append(errs, err)
	}
	errs = append(errs, l.f.Sync())
	if l.wrote {
		errs = append(errs, l.checkpoint(l.lastID, l.lastHash))
	}
	errs = append(errs, l.f.Close())
	// What it wrote is signed: it is no longer a writer the next ones
	// must take unsigned entries for.
	errs = append(errs, l.live.close())
	// Only now may Rotate move the log and its checkpoints.
	errs = append(errs, l.writers.Close())
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
