package audit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// What a writer witnessed, as the rule of the alert event it logs. The
// chain and the checkpoints cannot show these (the entries concerned are
// chained and later signed like any other), so the writer says them in the
// log, where the next checkpoint covers its words, and Verify repeats them.
const (
	// ruleTornTail: a line cut short by a crashed writer was repaired.
	ruleTornTail = "audit.torn_tail"
	// ruleUnsignedTail: a writer opening the log, with no other writer
	// holding it, found entries after the last signed checkpoint: written
	// by a writer killed before it signed them, or added by someone
	// without the key. The next checkpoint signs them along with the
	// alert, which keeps saying that no writer vouched for them.
	ruleUnsignedTail = "audit.unsigned_tail"
	// ruleChangedUnderWriter: the last entry a writer wrote or read is
	// no longer where it was, or the file shrank: no writer does that, so
	// someone rewrote the log while it was open. Verify reports it as
	// tampering (KindWitnessed).
	ruleChangedUnderWriter = "audit.changed_under_writer"
	// ruleWriteFailed: writes of the writer failed (a line that is no
	// entry ended the log, the disk was full, …) and their events are
	// not in the log; the first write that succeeds again says how many.
	// Verify repeats it as a warning.
	ruleWriteFailed = "audit.write_failed"
)

// witness is an alert of one of the rules above, as Verify finds it.
type witness struct {
	pos          int // position in the log
	rule, reason string
}

// maxWitnessReason bounds the reason Verify repeats from one alert, and
// maxWitnesses how many alerts it repeats.
const (
	maxWitnessReason = 512
	maxWitnesses     = 16
)

// witnessOf returns the witness an entry records, if it is an alert of
// one of the rules above but ruleTornTail.
func witnessOf(v value) *witness {
	if et, _ := v.get("event_type"); et.kind != kindString || et.str != Alert {
		return nil
	}
	rule, _ := v.get("rule")
	if rule.kind != kindString || (rule.str != ruleUnsignedTail && rule.str != ruleChangedUnderWriter && rule.str != ruleWriteFailed) {
		return nil
	}
	reason, _ := v.get("reason")
	r := reason.str
	if len(r) > maxWitnessReason {
		r = strings.ToValidUTF8(r[:maxWitnessReason], "") + "…"
	}
	return &witness{rule: rule.str, reason: strings.Clone(r)}
}

// witnessFindings turns the witnesses of a log into the problems and
// warnings Verify reports: a log changed under its writer is tampered
// with, entries no writer signed are a warning.
func witnessFindings(ws []witness, more int) (probs []problem, warnings []string) {
	for _, w := range ws {
		switch w.rule {
		case ruleChangedUnderWriter:
			probs = append(probs, problem{anchor: w.pos, first: w.pos, kind: KindWitnessed,
				msg: fmt.Sprintf("entry %d is a writer's alert that the log changed under it: %s", w.pos, w.reason)})
		case ruleUnsignedTail, ruleWriteFailed:
			warnings = append(warnings, fmt.Sprintf("entry %d is an alert: %s", w.pos, w.reason))
		}
	}
	if more > 0 {
		warnings = append(warnings, fmt.Sprintf("%s more like these (agentbox audit --type alert lists them)", countPhrase(more, "alert")))
	}
	return probs, warnings
}

// changedUnder reports how the file changed under this Log since it last
// read or wrote the file's tail (l.known bytes, ending in l.lastLine), or
// "" when that line is still there. Only the end of the file may change
// while a Log has it open: other writers append, and a repair removes a
// line cut short after the last whole one. The lock is held.
func (l *Log) changedUnder(size int64) (string, error) {
	if l.known < 0 || len(l.lastLine) == 0 {
		return "", nil
	}
	if size < l.known {
		return fmt.Sprintf("the log shrank from %d to %d bytes while this writer had it open (its entry %d ended at byte %d)",
			l.known, size, l.lastID, l.known), nil
	}
	n := int64(len(l.lastLine))
	got := make([]byte, n)
	if _, err := l.f.ReadAt(got, l.known-n); err != nil {
		return "", fmt.Errorf("audit: read %s: %w", l.path, err)
	}
	if !bytes.Equal(got, l.lastLine) {
		return fmt.Sprintf("the log was rewritten while this writer had it open: entry %d (hash %s), the last it wrote or read, is no longer at bytes %d–%d",
			l.lastID, l.lastHash, l.known-n, l.known), nil
	}
	return "", nil
}

// alertEvent prepares an alert of rule about the log, logging it as a
// warning too.
func (l *Log) alertEvent(rule, reason string) (*request, error) {
	l.log.Warn("audit: "+reason, "log", l.path, "rule", rule)
	return l.prepare(Event{EventType: Alert, Allowed: true, Resource: l.path, Rule: rule, Reason: reason}, false)
}

// unsignedTail is the alert for entries after the last signed checkpoint
// (of size signed) that no writer holding the log will sign.
func (l *Log) unsignedTail(signed uint64) (*request, error) {
	covered := "no checkpoint signed any entry"
	if signed > 0 {
		covered = fmt.Sprintf("the last checkpoint signed entries 1–%d", signed)
	}
	return l.alertEvent(ruleUnsignedTail, fmt.Sprintf(
		"%s not signed by a writer: no writer had the log open and %s; a writer was killed before it signed them, or someone without the audit key added them",
		entriesPhraseWere(int(signed)+1, int(l.lastID)), covered))
}

// signedState is what the state directory's checkpoints say of a log of
// n entries: the largest size signed above n (0 if none: the log did not
// shrink) and the largest signed at or below n.
type signedState struct {
	above, last uint64
}

// readSignedState reads the state directory's checkpoints of the log at
// path (under every key of stateKeys) for a log of n entries.
func readSignedState(dir, path string, n uint64) (signedState, error) {
	var st signedState
	vkey, err := verifierKeyOf(filepath.Join(dir, keyFile))
	if err != nil {
		return st, err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return st, fmt.Errorf("audit: verifier key: %w", err)
	}
	keys, err := stateKeys(path)
	if err != nil {
		return st, err
	}
	for _, k := range keys {
		above, last, err := signedSizes(stateCheckpointPath(dir, k), v, n)
		if err != nil {
			return st, err
		}
		st.above, st.last = max(st.above, above), max(st.last, last)
	}
	return st, nil
}

// signedSizes returns the largest size above n, and the largest at or
// below n, that a valid checkpoint in the file at path signed (0 for
// none). Signatures are checked from the largest size down, stopping at
// the first valid one on each side: a log in order costs one check.
func signedSizes(path string, v note.Verifier, n uint64) (above, last uint64, err error) {
	data, err := readRegular(path, maxCheckpointFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	type rec struct {
		size uint64
		msg  []byte
	}
	var recs []rec
	for _, c := range splitRecords(data, checkpointHeader) {
		text, _, ok := bytes.Cut(c, []byte("\n\n"))
		if !ok {
			continue
		}
		ck, err := parseCheckpointText(string(text) + "\n")
		if err != nil {
			continue
		}
		msg, _ := bytes.CutSuffix(c, []byte("\n\n"))
		recs = append(recs, rec{ck.Size, append(msg[:len(msg):len(msg)], '\n')})
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return cmp.Compare(b.size, a.size) })
	for _, r := range recs {
		if (r.size > n && above != 0) || (r.size <= n && last != 0) {
			continue
		}
		if _, err := note.Open(r.msg, note.VerifierList(v)); err != nil {
			continue
		}
		if r.size > n {
			above = r.size
		} else {
			last = r.size
			break
		}
	}
	return above, last, nil
}
