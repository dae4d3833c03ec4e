package audit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Kind names what is wrong with a log.
type Kind string

// Kinds of problems Verify reports.
const (
	// KindEdited: an entry's content does not match its hash.
	KindEdited Kind = "edited"
	// KindRewritten: an entry was changed and its hash recomputed; the
	// next entry still links to the original.
	KindRewritten Kind = "rewritten"
	// KindDeleted: entries are missing from the middle of the chain.
	KindDeleted Kind = "deleted"
	// KindReordered: entries are out of order.
	KindReordered Kind = "reordered"
	// KindInserted: entries were added inside the chain.
	KindInserted Kind = "inserted"
	// KindTruncated: the log has fewer entries than a signed checkpoint.
	KindTruncated Kind = "truncated"
	// KindRechained: the chain is consistent but does not match a signed
	// checkpoint: entries were rewritten and re-chained without the key.
	KindRechained Kind = "rechained"
	// KindForgedCheckpoint: a checkpoint is not signed by the audit key.
	KindForgedCheckpoint Kind = "forged_checkpoint"
	// KindMalformed: a line is not a valid audit entry.
	KindMalformed Kind = "malformed"
	// KindWitnessed: a writer recorded in the log that the log was
	// rewritten, or shrank, while the writer had it open.
	KindWitnessed Kind = "witnessed"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// StateDir holds the audit key and the copies of checkpoints; empty
	// means paths.StateDir().
	StateDir string
	// VerifierKey is the public key of the checkpoints
	// (STATE/audit/key.pub), for verifying a log on another machine; empty
	// means the key in StateDir.
	VerifierKey string
	// Workers parse and hash lines in parallel; zero means GOMAXPROCS.
	Workers int
}

// Report is the outcome of Verify. OK is true when nothing is wrong; a
// torn tail alone leaves it true.
type Report struct {
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	// Entries is the number of complete entries in the file.
	Entries int `json:"entries"`
	// Checkpoints is the number of distinct checkpoints whose signature
	// verified, and Signed the largest log size one of them covers.
	Checkpoints int    `json:"checkpoints"`
	Signed      uint64 `json:"signed"`
	// FirstBad is the number (position, from 1) of the first bad entry and
	// LastBad the last of a bad range, when the problem is a range; both
	// are 0 when the log is intact.
	FirstBad int    `json:"first_bad,omitempty"`
	LastBad  int    `json:"last_bad,omitempty"`
	Kind     Kind   `json:"kind,omitempty"`
	Problem  string `json:"problem,omitempty"`
	// TornBytes counts the bytes of a last line cut short by a writer that
	// crashed mid-append; the entries before it verify.
	TornBytes int      `json:"torn_bytes,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	// Rotated lists the earlier logs at this path that Rotate moved away,
	// as the state directory records them.
	Rotated []Rotation `json:"rotated,omitempty"`
}

// problem is one candidate finding; the earliest is reported.
type problem struct {
	anchor          int // position where the evidence is; earlier wins
	first, last     int
	kind            Kind
	msg             string
	fromCheckpoints bool
}

// rank orders findings with the same anchor: the chain's own evidence is the
// most precise, a forged checkpoint the least.
func (p problem) rank() int {
	switch {
	case !p.fromCheckpoints:
		return 0
	case p.kind == KindForgedCheckpoint:
		return 2
	default:
		return 1
	}
}

// Verify checks the chain of the log at path and every checkpoint of it,
// beside the log and in the state directory. Tampering is reported in the
// Report; the error is for a log or key that cannot be read. A log with
// checkpoints but no key to check them fails with ErrNoKey.
func Verify(path string, opts VerifyOptions) (Report, error) {
	rep := Report{Path: path}
	// Not through a link: a log swapped for a link to a chain re-made
	// elsewhere would be judged by the checkpoints filed for the target.
	f, err := openRegular(path, os.O_RDONLY, 0, "an audit log file")
	if err != nil {
		return rep, err
	}
	defer f.Close()
	ck, err := loadCheckpoints(path, opts, &rep)
	if err != nil {
		return rep, err
	}
	cs := chainState{prev: Genesis, want: ck.heads(), got: map[uint64]string{}, ring: make([]string, ringSize)}
	if err := scanLines(f, opts.Workers, cs.line); err != nil {
		return rep, err
	}
	cs.finish()
	rep.Entries = cs.n
	rep.TornBytes = cs.torn
	probs := cs.probs
	probs = append(probs, ck.check(cs.n, cs.got)...)
	if c := int(ck.closed); c > 0 && cs.n > c {
		// Found by red-team round 53: a sandbox appended to a rotated
		// log, which verify took for a live log's unsigned tail.
		probs = append(probs, problem{anchor: c + 1, first: c + 1, last: cs.n, kind: KindInserted, fromCheckpoints: true,
			msg: fmt.Sprintf("entries %d–%d were added after the log was rotated here, which closed its chain at entry %d (signed)", c+1, cs.n, c)})
	}
	wprobs, warnings := witnessFindings(cs.witnessed, cs.moreWitnessed)
	probs = append(probs, wprobs...)
	rep.Warnings = append(rep.Warnings, warnings...)
	rep.Checkpoints, rep.Signed = ck.summary()
	if len(probs) > 0 {
		sort.SliceStable(probs, func(i, j int) bool {
			if probs[i].anchor != probs[j].anchor {
				return probs[i].anchor < probs[j].anchor
			}
			return probs[i].rank() < probs[j].rank()
		})
		p := probs[0]
		rep.FirstBad, rep.LastBad, rep.Kind, rep.Problem = p.first, p.last, p.kind, p.msg
		return rep, nil
	}
	rep.OK = true
	return rep, nil
}

// ringSize is how many recent entry hashes the chain check remembers, to
// tell an insertion from other breaks.
const ringSize = 1024

// chainState checks linkage line by line.
type chainState struct {
	pos   int    // lines seen, valid or not
	n     int    // complete entries
	prev  string // hash field of the previous line
	torn  int
	probs []problem
	// gap is a line whose id jumped ahead (deletion or reordering); ids
	// seen later decide which.
	gap       *problem
	gapFrom   uint64
	gapTo     uint64
	gapMoved  bool
	broken    bool
	want, got map[uint64]string // checkpoint sizes → hash found at that position
	ring      []string          // hash fields of recent lines, by position
	// witnessed lists the first maxWitnesses alerts of writers that say
	// what the chain cannot (see witness.go); moreWitnessed counts the
	// rest.
	witnessed        []witness
	moreWitnessed    int
	changedWitnessed bool // witnessed holds a ruleChangedUnderWriter alert
}

func (cs *chainState) line(lr lineResult) bool {
	cs.pos++
	i := cs.pos
	if lr.err != nil {
		if lr.unterminated {
			cs.torn = lr.size
			return false
		}
		cs.n++
		cs.fail(problem{anchor: i, first: i, kind: KindMalformed,
			msg: fmt.Sprintf("line %d is not a valid audit entry: %v", i, lr.err)})
		return true
	}
	if lr.unterminated && (!lr.hashOK || lr.id != uint64(i) || lr.prev != cs.prev) {
		// A crash can cut a line anywhere, even after a closing brace.
		cs.torn = lr.size
		return false
	}
	cs.n++
	if _, ok := cs.want[uint64(i)]; ok {
		cs.got[uint64(i)] = lr.hash
	}
	if w := lr.witness; w != nil && lr.hashOK {
		// A writer's word that the log changed under it is kept past
		// the cap: forged alerts before it must not push it out.
		if len(cs.witnessed) < maxWitnesses || w.rule == ruleChangedUnderWriter && !cs.changedWitnessed {
			w.pos = i
			cs.witnessed = append(cs.witnessed, *w)
			cs.changedWitnessed = cs.changedWitnessed || w.rule == ruleChangedUnderWriter
		} else {
			cs.moreWitnessed++
		}
	}
	if cs.gap != nil && lr.id >= cs.gapFrom && lr.id < cs.gapTo {
		cs.gapMoved = true
	}
	defer func() {
		cs.prev = lr.hash
		cs.ring[i%ringSize] = lr.hash
	}()
	if cs.broken {
		return true
	}
	switch {
	case !lr.hashOK:
		cs.fail(problem{anchor: i, first: i, kind: KindEdited,
			msg: fmt.Sprintf("entry %d was edited: its content does not match its hash", i)})
	case lr.id == uint64(i) && lr.prev != cs.prev:
		if i == 1 {
			cs.fail(problem{anchor: i, first: 1, kind: KindRewritten,
				msg: fmt.Sprintf("entry 1 does not start the chain (prev_hash is not %q): the log's beginning was rewritten", Genesis)})
		} else {
			cs.fail(problem{anchor: i, first: i - 1, kind: KindRewritten,
				msg: fmt.Sprintf("entry %d was rewritten: its hash was recomputed, but entry %d still links to the original", i-1, i)})
		}
	case lr.id > uint64(i):
		cs.gap = &problem{anchor: i, first: i}
		cs.gapFrom, cs.gapTo = uint64(i), lr.id
		cs.broken = true
	case lr.id < uint64(i):
		cs.inserted(i, lr)
	}
	return true
}

// inserted reports a line whose id was seen before.
func (cs *chainState) inserted(i int, lr lineResult) {
	first := int(lr.id)
	if lr.hash == cs.prev && lr.id == uint64(i-1) {
		cs.fail(problem{anchor: i, first: i, kind: KindInserted,
			msg: fmt.Sprintf("line %d duplicates entry %d", i, i-1)})
		return
	}
	// Where does this line link to? If to the entry at position id-1, the
	// lines from position id to i-1 were inserted before it.
	if k := first - 1; i-k <= ringSize && (k == 0 && lr.prev == Genesis || k > 0 && cs.ring[k%ringSize] == lr.prev) {
		cs.fail(problem{anchor: i, first: first, last: i - 1, kind: KindInserted,
			msg: fmt.Sprintf("%s inserted: line %d holds entry %d, which links to entry %d", linesPhrase(first, i-1), i, lr.id, k)})
		return
	}
	cs.fail(problem{anchor: i, first: first, kind: KindInserted,
		msg: fmt.Sprintf("line %d holds entry %d again: entries were inserted or duplicated after line %d", i, lr.id, first-1)})
}

func linesPhrase(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d was", a)
	}
	return fmt.Sprintf("lines %d–%d were", a, b)
}

func (cs *chainState) fail(p problem) {
	if !cs.broken {
		cs.probs = append(cs.probs, p)
	}
	cs.broken = true
}

// finish classifies a pending gap once every later id is known.
func (cs *chainState) finish() {
	if cs.gap == nil {
		return
	}
	p := *cs.gap
	i := p.first
	if cs.gapMoved {
		p.kind = KindReordered
		p.msg = fmt.Sprintf("entries are out of order from line %d: entry %d comes before entry %d", i, cs.gapTo, i)
	} else {
		p.kind = KindDeleted
		p.last = int(cs.gapTo) - 1
		if i == 1 {
			p.msg = fmt.Sprintf("%s deleted: the log starts at entry %d", entriesPhraseWere(i, p.last), cs.gapTo)
		} else {
			p.msg = fmt.Sprintf("%s deleted: entry %d follows entry %d", entriesPhraseWere(i, p.last), cs.gapTo, i-1)
		}
	}
	cs.probs = append(cs.probs, p)
}

// checkpointSet holds every checkpoint record found for a log.
type checkpointSet struct {
	recs []checkpointRecord
	// closed is the size at which a rotation closed the chain of the log
	// it moved here (0: none): no writer adds to it after that.
	closed uint64
}

// loadCheckpoints reads the checkpoints beside the log and in the state
// directory, verified with the audit key.
func loadCheckpoints(path string, opts VerifyOptions, rep *Report) (*checkpointSet, error) {
	dir, err := auditDir(opts.StateDir, false)
	if err != nil {
		return nil, err
	}
	keys, err := stateKeys(path)
	if err != nil {
		return nil, err
	}
	abs := keys[0]
	v, warning, keyErr := loadVerifier(dir, opts.VerifierKey)
	if warning != "" {
		rep.Warnings = append(rep.Warnings, warning)
	}
	beside, err := readCheckpoints(path+CheckpointSuffix, v)
	if nr := (*notRegularError)(nil); errors.As(err, &nr) {
		// Not agentbox's: the state directory's copies still count.
		rep.Warnings = append(rep.Warnings, nr.Error()+"; its checkpoints were not read")
		err = nil
	}
	if err != nil {
		return nil, err
	}
	var state []checkpointRecord
	for _, k := range keys {
		recs, err := readCheckpoints(stateCheckpointPath(dir, k), v)
		if err != nil {
			return nil, err
		}
		state = append(state, recs...)
	}
	if keyErr != nil {
		if len(beside)+len(state) > 0 {
			return nil, fmt.Errorf("%w: cannot check the %d signed checkpoints of %s (the verifier key is in STATE/audit/key.pub where the log was written)", keyErr, len(beside)+len(state), path)
		}
		if !errors.Is(keyErr, ErrNoKey) {
			return nil, keyErr
		}
	}
	var closed uint64
	if v != nil {
		rots, warnings, err := readRotations(stateCheckpointPath(dir, abs), v)
		if err != nil {
			return nil, err
		}
		for _, r := range rots {
			if filepath.Clean(r.To) == abs {
				// The rotation that moved this log here, closing its
				// chain (the state's copy came with it).
				closed = max(closed, r.Size)
				continue
			}
			r.From = abs
			rep.Rotated = append(rep.Rotated, r)
		}
		rep.Warnings = append(rep.Warnings, warnings...)
	}
	ck := &checkpointSet{recs: append(beside, state...), closed: closed}
	for _, r := range ck.recs {
		if r.torn {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: checkpoint %d is cut short (a writer crashed mid-append); ignored", r.source, r.index))
		}
	}
	if nb, ns := distinctValid(beside), distinctValid(state); ns > nb {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s holds %s, fewer than the %d in the state directory: it was truncated or deleted", path+CheckpointSuffix, countPhrase(nb, "checkpoint"), ns))
	}
	return ck, nil
}

func distinctValid(recs []checkpointRecord) int {
	seen := map[Checkpoint]bool{}
	for _, r := range recs {
		if r.err == nil {
			seen[Checkpoint{Size: r.Size, Head: r.Head}] = true
		}
	}
	return len(seen)
}

// heads returns the log sizes the valid checkpoints speak about.
func (ck *checkpointSet) heads() map[uint64]string {
	m := map[uint64]string{}
	for _, r := range ck.recs {
		if r.err == nil {
			m[r.Size] = r.Head
		}
	}
	return m
}

func (ck *checkpointSet) summary() (count int, signed uint64) {
	for _, r := range ck.recs {
		if r.err == nil {
			signed = max(signed, r.Size)
		}
	}
	return distinctValid(ck.recs), signed
}

// check compares the checkpoints with a log of n entries whose hash fields
// at the checkpoint sizes are got.
func (ck *checkpointSet) check(n int, got map[uint64]string) []problem {
	// good: sizes of valid checkpoints that match the log.
	var good []uint64
	var probs []problem
	for _, r := range ck.recs {
		if r.err == nil && r.Size <= uint64(n) && got[r.Size] == r.Head {
			good = append(good, r.Size)
		}
	}
	sort.Slice(good, func(i, j int) bool { return good[i] < good[j] })
	var maxGood uint64
	if len(good) > 0 {
		maxGood = good[len(good)-1]
	}
	goodBelow := func(s uint64) int {
		k := sort.Search(len(good), func(i int) bool { return good[i] >= s })
		if k == 0 {
			return 0
		}
		return int(good[k-1])
	}
	// Of the checkpoints beyond the log's end, the largest says how much is
	// missing.
	var truncated *checkpointRecord
	for i, r := range ck.recs {
		if r.err == nil && r.Size > uint64(n) && (truncated == nil || r.Size > truncated.Size) {
			truncated = &ck.recs[i]
		}
	}
	if r := truncated; r != nil {
		probs = append(probs, problem{anchor: n + 1, first: n + 1, last: int(r.Size), kind: KindTruncated, fromCheckpoints: true,
			msg: fmt.Sprintf("log truncated: it has %d entries but a checkpoint in %s signed %d; %s missing", n, r.source, r.Size, entriesPhrase(n+1, int(r.Size)))})
	}
	for _, r := range ck.recs {
		switch {
		case r.torn:
		case r.err != nil:
			p := problem{anchor: math.MaxInt, kind: KindForgedCheckpoint, fromCheckpoints: true}
			what := fmt.Sprintf("checkpoint %d in %s", r.index, r.source)
			if r.Size > 0 {
				p.anchor = int(min(r.Size, uint64(math.MaxInt)))
				what = fmt.Sprintf("%s (size %d)", what, r.Size)
			}
			p.msg = fmt.Sprintf("%s is not valid: %v", what, r.err)
			if lg := goodBelow(r.Size); r.Size > 0 && maxGood < r.Size && lg < n {
				p.first, p.last = lg+1, int(min(r.Size, uint64(n)))
				p.msg += fmt.Sprintf("; entries %d–%d may have been re-chained", p.first, p.last)
			}
			probs = append(probs, p)
		case r.Size > uint64(n): // reported above
		case got[r.Size] != r.Head:
			first := goodBelow(r.Size) + 1
			probs = append(probs, problem{anchor: int(r.Size), first: first, last: int(r.Size), kind: KindRechained, fromCheckpoints: true,
				msg: fmt.Sprintf("%s rewritten and re-chained: a checkpoint in %s signed entry %d with hash %.12s…, the log's entry %d has %.12s…",
					entriesPhraseWere(first, int(r.Size)), r.source, r.Size, r.Head, r.Size, got[r.Size])})
		}
	}
	return probs
}

func entriesPhrase(a, b int) string {
	if a == b {
		return fmt.Sprintf("entry %d is", a)
	}
	return fmt.Sprintf("entries %d–%d are", a, b)
}

func entriesPhraseWere(a, b int) string {
	if a == b {
		return fmt.Sprintf("entry %d was", a)
	}
	return fmt.Sprintf("entries %d–%d were", a, b)
}

// countPhrase says "1 checkpoint", "0 checkpoints", "2 checkpoints".
func countPhrase(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
