package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// rotationHeader is the first line of the signed record a rotation leaves
// in the state directory for the path it moved a log away from.
const rotationHeader = "agentbox audit rotation v1"

var (
	// ErrLogShrunk reports a log with fewer entries than the audit key
	// signed for a log at its path: it was moved, truncated or deleted.
	// Open refuses to continue or restart its chain, which would leave
	// neither the new log nor the old one verifiable; Rotate is the way to
	// start a new chain at a path.
	ErrLogShrunk = errors.New("audit: log shorter than its signed checkpoints")
	// ErrNotIntact reports a log that Rotate refuses to move because it
	// does not verify.
	ErrNotIntact = errors.New("audit: log does not verify")
)

// Rotation records that the chain of the log at From, Size entries ending
// with the hash Head, was moved to To at Time.
type Rotation struct {
	From string    `json:"from"`
	To   string    `json:"to"`
	Size uint64    `json:"size"`
	Head string    `json:"head"`
	Time time.Time `json:"time"`
}

func (r Rotation) text() string {
	return fmt.Sprintf("%s\nsize %d\nhead %s\ntime %s\nto %s\n", rotationHeader, r.Size, r.Head, r.Time.UTC().Format(time.RFC3339), r.To)
}

func parseRotationText(text string) (Rotation, error) {
	var r Rotation
	head, to, ok := strings.Cut(strings.TrimSuffix(text, "\n"), "\nto ")
	if !ok || strings.Contains(to, "\n") || !filepath.IsAbs(to) {
		return r, errors.New("malformed rotation record")
	}
	c, err := parseCheckpointText(strings.Replace(head, rotationHeader, checkpointHeader, 1) + "\n")
	if err != nil || !strings.HasPrefix(head, rotationHeader+"\n") {
		return r, errors.New("malformed rotation record")
	}
	return Rotation{To: to, Size: c.Size, Head: c.Head, Time: c.Time}, nil
}

// RotateOptions configure Rotate.
type RotateOptions struct {
	// StateDir holds the audit key and the copies of checkpoints; empty
	// means paths.StateDir().
	StateDir string
}

// Rotate moves the log at path, and its checkpoints, to to, so that the
// next writer at path starts a new chain. It needs the audit key: it signs
// a checkpoint of the log's head, moves the state directory's copy of the
// checkpoints along with the log, and leaves in the state directory a
// signed record that the chain at path was closed at that head and moved to
// to. Both logs then verify, while a log moved or deleted without Rotate is
// still caught. It refuses a log that does not verify (ErrNotIntact), an
// empty one, a destination that exists or had a log before, and a log that
// a writer has open (ErrLogInUse): it would go on writing to the moved file.
func Rotate(path, to string, opts RotateOptions) (Rotation, error) {
	dir, err := auditDir(opts.StateDir, true)
	if err != nil {
		return Rotation{}, err
	}
	signer, err := loadOrCreateSigner(dir)
	if err != nil {
		return Rotation{}, err
	}
	// The rotated log keeps its chain where it goes: somewhere no other
	// user may read, replace or remove it.
	toAbs, err := locateLog(to)
	if err != nil {
		return Rotation{}, err
	}
	// The log as the kernel reaches it: moved by this one path, with no
	// link or ".." in it, as its writers open it (see Open).
	abs, err := canonicalPath(path)
	if err != nil {
		return Rotation{}, err
	}
	isLink := fmt.Errorf("audit: %s is a symbolic link; rotate the log it points to", path)
	if fi, err := os.Lstat(abs); err != nil {
		return Rotation{}, fmt.Errorf("audit: %w", err)
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return Rotation{}, isLink
	}
	// No writer may have the log open, nor open it until it has moved.
	writers, err := excludeWriters(abs)
	if err != nil {
		return Rotation{}, err
	}
	defer writers.Close()
	f, err := os.OpenFile(abs, os.O_RDWR|openNoFollow, 0)
	if isSymlinkErr(err) {
		return Rotation{}, isLink
	}
	if err != nil {
		return Rotation{}, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	// Writers append under this lock: none slips in while the log moves.
	if err := lockWithin(f, writersWait, path); err != nil {
		return Rotation{}, err
	}
	defer unlockFile(f)
	rep, err := Verify(path, VerifyOptions{StateDir: opts.StateDir})
	if err != nil {
		return Rotation{}, err
	}
	if !rep.OK {
		return Rotation{}, fmt.Errorf("%w: %s is %s at entry %d; a damaged log stays where it is: run agentbox verify %s", ErrNotIntact, path, rep.Kind, rep.FirstBad, path)
	}
	fi, err := f.Stat()
	if err != nil {
		return Rotation{}, fmt.Errorf("audit: %w", err)
	}
	t, err := readTail(f, fi.Size())
	if err != nil {
		return Rotation{}, fmt.Errorf("%s: %w", path, err)
	}
	if t.id == 0 {
		return Rotation{}, fmt.Errorf("audit: %s has no entries; there is nothing to rotate", path)
	}
	stateFrom, stateTo := stateCheckpointPath(dir, abs), stateCheckpointPath(dir, toAbs)
	for _, p := range []string{toAbs, toAbs + CheckpointSuffix, stateTo} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return Rotation{}, fmt.Errorf("audit: a log was at %s before (%s exists); rotate to a new name", toAbs, p)
		}
	}
	rot := Rotation{From: abs, To: toAbs, Size: t.id, Head: t.hash, Time: time.Now().UTC().Truncate(time.Second)}
	if err := rotateFiles(signer, abs, rot, stateFrom, stateTo); err != nil {
		return Rotation{}, err
	}
	return rot, nil
}

// rotateFiles does Rotate's writes, in an order after which a crash leaves
// at worst both names of the log in place.
func rotateFiles(signer note.Signer, path string, rot Rotation, stateFrom, stateTo string) error {
	// 1. Sign the head, beside the log and in the state directory, so
	// that the moved log is covered to its last entry.
	rec, err := signCheckpoint(signer, Checkpoint{Size: rot.Size, Head: rot.Head, Time: rot.Time})
	if err != nil {
		return err
	}
	msg, err := note.Sign(&note.Note{Text: rot.text()}, signer)
	if err != nil {
		return fmt.Errorf("audit: sign rotation: %w", err)
	}
	if err := errors.Join(appendRecord(path+CheckpointSuffix, rec, "", besideWait),
		appendRecord(stateFrom, rec, fmt.Sprintf("# checkpoints of %q\n", rot.From), writersWait)); err != nil {
		return err
	}
	// 2. The log and its checkpoints get their new names (link fails if
	// the name was taken meanwhile, or is on another file system); until
	// step 4 is done a failure takes them back.
	if err := os.Link(path, rot.To); err != nil {
		return fmt.Errorf("audit: move %s to %s: %w", path, rot.To, err)
	}
	undo := func(err error) error {
		return errors.Join(err, os.Remove(rot.To), ignoreNotExist(os.Remove(rot.To+CheckpointSuffix)))
	}
	if err := os.Link(path+CheckpointSuffix, rot.To+CheckpointSuffix); err != nil {
		return undo(fmt.Errorf("audit: move %s to %s: %w", path+CheckpointSuffix, rot.To+CheckpointSuffix, err))
	}
	// 3. The state directory's copy goes with the log.
	old, err := os.ReadFile(stateFrom)
	if err != nil {
		return undo(fmt.Errorf("audit: %w", err))
	}
	moved := append([]byte(fmt.Sprintf("# checkpoints of %q, rotated from %q\n", rot.To, rot.From)), old...)
	// With the signed record of the rotation: the chain it moved is
	// closed at its head, which verify holds it to (red-team round 53).
	moved = append(append(moved, msg...), '\n')
	if err := writeFileAtomic(filepath.Dir(stateTo), filepath.Base(stateTo), moved, 0o600, true); err != nil {
		return undo(err)
	}
	// 4. The path's copy now says only where its chain went.
	closed := append([]byte(fmt.Sprintf("# checkpoints of %q\n", rot.From)), msg...)
	closed = append(closed, '\n')
	if err := writeFileAtomic(filepath.Dir(stateFrom), filepath.Base(stateFrom), closed, 0o600, false); err != nil {
		return undo(errors.Join(err, os.Remove(stateTo)))
	}
	// 5. The old names go.
	if err := errors.Join(os.Remove(path), os.Remove(path+CheckpointSuffix)); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return errors.Join(syncDir(filepath.Dir(path)), syncDir(filepath.Dir(rot.To)))
}

// readRotations returns the rotation records in the state directory's copy
// of checkpoints at path whose signature v verifies; the others are
// described in warnings.
func readRotations(path string, v note.Verifier) ([]Rotation, []string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("audit: %w", err)
	}
	var rots []Rotation
	var warnings []string
	for _, c := range splitRecords(data, rotationHeader) {
		msg, complete := bytes.CutSuffix(c, []byte("\n\n"))
		if !complete {
			continue // cut short, or followed by checkpoints: not one of ours
		}
		var r Rotation
		n, err := note.Open(append(msg, '\n'), note.VerifierList(v))
		if err == nil {
			r, err = parseRotationText(n.Text)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: a rotation record is not valid (%v); ignored", path, describeNoteError(err)))
			continue
		}
		rots = append(rots, r)
	}
	return rots, warnings, nil
}

// splitRecords cuts data at every line equal to header; each chunk runs up
// to the next line that starts any record or to the end.
func splitRecords(data []byte, header string) [][]byte {
	var chunks [][]byte
	start := -1
	for off := 0; off < len(data); {
		end := len(data)
		if nl := bytes.IndexByte(data[off:], '\n'); nl >= 0 {
			end = off + nl
		}
		line := string(data[off:end])
		if line == checkpointHeader || line == rotationHeader || strings.HasPrefix(line, "# ") {
			if start >= 0 {
				chunks = append(chunks, data[start:off])
			}
			start = -1
			if line == header {
				start = off
			}
		}
		off = end + 1
	}
	if start >= 0 {
		chunks = append(chunks, data[start:])
	}
	return chunks
}

// checkNotShrunk refuses a log at path of n entries when
// the audit key signed more entries for the log at that path.
func checkNotShrunk(dir, path string, n uint64) error {
	st, err := readSignedState(dir, path, n)
	if err != nil {
		return err
	}
	return st.shrunk(path, n)
}

// shrunk is ErrLogShrunk when a checkpoint signed more than the n
// entries of the log at path.
func (st signedState) shrunk(path string, n uint64) error {
	if st.above == 0 {
		return nil
	}
	return &shrunkError{path: path, n: n, signed: st.above}
}

// shrunkError is ErrLogShrunk with what to do, in one line.
type shrunkError struct {
	path      string
	n, signed uint64
}

func (e *shrunkError) Error() string {
	return fmt.Sprintf("the audit log %s has %d entries but the audit key signed %d for the log at this path: it was moved, truncated or deleted; put it back, and to start a new log there run agentbox audit rotate --log %s",
		e.path, e.n, e.signed, e.path)
}

func (e *shrunkError) Is(target error) bool { return target == ErrLogShrunk }

func ignoreNotExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
