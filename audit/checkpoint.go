package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// checkpointHeader is the first line of every checkpoint text.
const checkpointHeader = "agentbox audit checkpoint v1"

// CheckpointSuffix is appended to a log's path to name the file of
// checkpoints kept beside it.
const CheckpointSuffix = ".checkpoints"

// Checkpoint is a signed statement that a log had Size entries and that the
// hash of entry Size was Head.
type Checkpoint struct {
	Size uint64    `json:"size"`
	Head string    `json:"head"`
	Time time.Time `json:"time"`
}

func (c Checkpoint) text() string {
	return fmt.Sprintf("%s\nsize %d\nhead %s\ntime %s\n", checkpointHeader, c.Size, c.Head, c.Time.UTC().Format(time.RFC3339))
}

func parseCheckpointText(text string) (Checkpoint, error) {
	var c Checkpoint
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 4 || lines[0] != checkpointHeader {
		return c, errors.New("not an agentbox checkpoint")
	}
	var err error
	size, ok := strings.CutPrefix(lines[1], "size ")
	if c.Size, err = strconv.ParseUint(size, 10, 64); !ok || err != nil {
		return c, errors.New("malformed size line")
	}
	if c.Head, ok = strings.CutPrefix(lines[2], "head "); !ok || len(c.Head) != 2*sha256.Size {
		return c, errors.New("malformed head line")
	}
	ts, ok := strings.CutPrefix(lines[3], "time ")
	if c.Time, err = time.Parse(time.RFC3339, ts); !ok || err != nil {
		return c, errors.New("malformed time line")
	}
	return c, nil
}

// signCheckpoint returns the signed note for c, followed by the blank line
// that separates records in a checkpoint file.
func signCheckpoint(s note.Signer, c Checkpoint) ([]byte, error) {
	msg, err := note.Sign(&note.Note{Text: c.text()}, s)
	if err != nil {
		return nil, fmt.Errorf("audit: sign checkpoint: %w", err)
	}
	return append(msg, '\n'), nil
}

// stateCheckpointPath names the state-directory copy of the checkpoints of
// the log at abs (an absolute path with symlinks resolved).
func stateCheckpointPath(dir, abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, checkpointDir, hex.EncodeToString(sum[:16])+CheckpointSuffix)
}

// appendRecord appends rec to the checkpoint file at path under an
// exclusive lock, waited for at most wait, and syncs it. header is written
// first when the file is new.
func appendRecord(path string, rec []byte, header string, wait time.Duration) error {
	f, err := openAppend(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockWithin(f, wait, path); err != nil {
		return err
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	var buf []byte
	if fi.Size() == 0 && header != "" {
		buf = append(buf, header...)
	}
	buf = append(buf, rec...)
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("audit: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("audit: sync %s: %w", path, err)
	}
	return nil
}

// checkpointRecord is one record of a checkpoint file, verified or not.
type checkpointRecord struct {
	Checkpoint
	source string // file it came from
	index  int    // 1-based position in that file
	err    error  // nil if the signature verified and the text parsed
	torn   bool   // last record cut short by a crash
}

// maxCheckpointFile bounds a checkpoint file read whole: a checkpoint is
// a few hundred bytes, written every few thousand events and at the end
// of each run, so this is hundreds of thousands of them.
const maxCheckpointFile = 64 << 20

// readCheckpoints returns the records of the checkpoint file at path,
// verified with v (nil: no key, every record unverified). A missing file
// yields no records.
func readCheckpoints(path string, v note.Verifier) ([]checkpointRecord, error) {
	data, err := readRegular(path, maxCheckpointFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A chunk ends where the next record begins, a rotation's too (the
	// state's copy of a rotated log holds the record that closed it).
	chunks := splitRecords(data, checkpointHeader)
	var verifiers note.Verifiers
	if v != nil {
		verifiers = note.VerifierList(v)
	}
	recs := make([]checkpointRecord, 0, len(chunks))
	for i, c := range chunks {
		r := checkpointRecord{source: path, index: i + 1}
		msg, complete := bytes.CutSuffix(c, []byte("\n\n"))
		if complete {
			msg = append(msg, '\n')
		}
		n, err := note.Open(msg, verifiers)
		switch {
		case err == nil:
			r.Checkpoint, r.err = parseCheckpointText(n.Text)
		case !complete && i == len(chunks)-1:
			r.torn = true
			r.err = errors.New("cut short (a writer crashed mid-append)")
		default:
			r.err = describeNoteError(err)
			if n != nil {
				r.Checkpoint, _ = parseCheckpointText(n.Text)
			} else {
				var ue *note.UnverifiedNoteError
				if errors.As(err, &ue) {
					r.Checkpoint, _ = parseCheckpointText(ue.Note.Text)
				}
			}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func describeNoteError(err error) error {
	var ue *note.UnverifiedNoteError
	var ie *note.InvalidSignatureError
	switch {
	case errors.As(err, &ue):
		return errors.New("signed by a key other than this machine's audit key")
	case errors.As(err, &ie):
		return errors.New("signature does not verify")
	default:
		return fmt.Errorf("malformed: %w", err)
	}
}
