package audit

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// The tampering table runs on a log of 30 entries with checkpoints at 10,
// 20 and 30 (the last also signed by Close).
const tamperN, tamperEvery = 30, 10

func TestVerifyIntact(t *testing.T) {
	env := newEnv(t)
	env.write(t, tamperN, Options{CheckpointEvery: tamperEvery, Sync: SyncNone})
	rep := env.verify(t)
	if !rep.OK || rep.Entries != tamperN || rep.Checkpoints != 3 || rep.Signed != tamperN || rep.FirstBad != 0 || len(rep.Warnings) != 0 {
		t.Fatalf("intact log: %+v", rep)
	}
}

func TestVerifyEmptyAndNoCheckpoint(t *testing.T) {
	env := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(env.path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env.path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 0 || rep.Checkpoints != 0 {
		t.Fatalf("empty log: %+v", rep)
	}
	// A log whose writer never closed (no checkpoint) verifies on its chain.
	l := env.open(t, Options{CheckpointEvery: -1})
	for i := range 3 {
		if err := l.Append(t.Context(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 3 || rep.Checkpoints != 0 || rep.Signed != 0 {
		t.Fatalf("unsigned log: %+v", rep)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Checkpoints != 1 || rep.Signed != 3 {
		t.Fatalf("after Close: %+v", rep)
	}
}

func TestVerifyMissingFile(t *testing.T) {
	env := newEnv(t)
	if _, err := Verify(env.path, VerifyOptions{StateDir: env.state}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing log: err = %v, want not-exist", err)
	}
}

func TestVerifyTampering(t *testing.T) {
	type mutate func(t *testing.T, env testEnv, ls [][]byte) [][]byte
	attackerKey := func(t *testing.T) note.Signer {
		skey, _, err := note.GenerateKey(rand.Reader, keyName)
		if err != nil {
			t.Fatal(err)
		}
		s, err := note.NewSigner(skey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name        string
		mutate      mutate
		kind        Kind
		first, last int // expected FirstBad (and LastBad when not 0)
		inProblem   string
	}{
		{name: "edited field", kind: KindEdited, first: 7, inProblem: "entry 7 was edited",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[6] = bytes.Replace(ls[6], []byte(`"allowed":true`), []byte(`"allowed":false`), 1)
				ls[6] = bytes.Replace(ls[6], []byte(`"resource":"resource-6"`), []byte(`"resource":"harmless"`), 1)
				return ls
			}},
		{name: "edited hash field", kind: KindEdited, first: 7,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[6] = setMember(t, ls[6], "hash", strValue(strings.Repeat("ab", 32)))
				return ls
			}},
		{name: "member added", kind: KindEdited, first: 4,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[3] = setMember(t, ls[3], "approved_by", strValue("admin"))
				return ls
			}},
		{name: "edited and rehashed", kind: KindRewritten, first: 7, inProblem: "entry 7 was rewritten",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[6], _ = rehash(t, setMember(t, ls[6], "resource", strValue("harmless")), 0, "")
				return ls
			}},
		{name: "first entry rehashed", kind: KindRewritten, first: 1,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[0], _ = rehash(t, setMember(t, ls[0], "agent_name", strValue("someone")), 0, "")
				return ls
			}},
		{name: "last entry rehashed", kind: KindRechained, first: 21, last: 30,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[29], _ = rehash(t, setMember(t, ls[29], "allowed", boolValue(true)), 0, "")
				return ls
			}},
		{name: "deleted one", kind: KindDeleted, first: 12, last: 12, inProblem: "entry 12 was deleted",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				return append(ls[:11:11], ls[12:]...)
			}},
		{name: "deleted three", kind: KindDeleted, first: 12, last: 14, inProblem: "entries 12–14 were deleted",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				return append(ls[:11:11], ls[14:]...)
			}},
		{name: "deleted first", kind: KindDeleted, first: 1, last: 1, inProblem: "entry 1 was deleted: the log starts at entry 2",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte { return ls[1:] }},
		{name: "deleted first three", kind: KindDeleted, first: 1, last: 3, inProblem: "entries 1–3 were deleted: the log starts at entry 4",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte { return ls[3:] }},
		{name: "swapped", kind: KindReordered, first: 5, inProblem: "out of order",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[4], ls[5] = ls[5], ls[4]
				return ls
			}},
		{name: "moved later", kind: KindReordered, first: 3,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				moved := ls[2]
				out := append(ls[:2:2], ls[3:8]...)
				out = append(out, moved)
				return append(out, ls[8:]...)
			}},
		{name: "duplicated", kind: KindInserted, first: 10, inProblem: "duplicates entry 9",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				out := append(ls[:9:9], ls[8])
				return append(out, ls[9:]...)
			}},
		{name: "forged entry inserted", kind: KindInserted, first: 5, last: 5, inProblem: "line 5 was inserted",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				v, _ := parseObject(ls[3])
				h, _ := v.get("hash")
				forged, _ := rehash(t, setMember(t, ls[4], "reason", strValue("forged")), 5, h.str)
				out := append(ls[:4:4], forged)
				return append(out, ls[4:]...)
			}},
		{name: "garbage line", kind: KindMalformed, first: 3,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				out := append(ls[:2:2], []byte("rm -rf / # not json"))
				return append(out, ls[2:]...)
			}},
		{name: "duplicate key", kind: KindMalformed, first: 8,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[7] = bytes.Replace(ls[7], []byte(`{`), []byte(`{"allowed":true,`), 1)
				return ls
			}},
		{name: "truncated", kind: KindTruncated, first: 26, last: 30, inProblem: "log truncated",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte { return ls[:25] }},
		{name: "truncated and checkpoints beside deleted", kind: KindTruncated, first: 26, last: 30,
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				if err := os.Remove(env.path + CheckpointSuffix); err != nil {
					t.Fatal(err)
				}
				return ls[:25]
			}},
		{name: "truncated and checkpoints beside truncated", kind: KindTruncated, first: 21, last: 30,
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				b, _ := os.ReadFile(env.path + CheckpointSuffix)
				i := bytes.Index(b, []byte("size 30"))
				if err := os.WriteFile(env.path+CheckpointSuffix, b[:bytes.LastIndex(b[:i], []byte(checkpointHeader))], 0o600); err != nil {
					t.Fatal(err)
				}
				return ls[:20]
			}},
		{name: "truncated below two checkpoints", kind: KindTruncated, first: 26, last: 35, inProblem: "entries 26–35 are missing",
			mutate: func(t *testing.T, env testEnv, _ [][]byte) [][]byte {
				env.write(t, 5, Options{CheckpointEvery: tamperEvery, Sync: SyncNone}) // signs 35 after 30
				return lines(t, env.path)[:25]
			}},
		{name: "emptied", kind: KindTruncated, first: 1,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte { return nil }},
		{name: "deleted and re-chained", kind: KindRechained, first: 11, last: 20, inProblem: "re-chained",
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				return rechainFrom(t, append(ls[:14:14], ls[15:]...), 14)
			}},
		{name: "edited and re-chained", kind: KindRechained, first: 11, last: 20,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[14] = setMember(t, ls[14], "event_type", strValue(CommandExec))
				return rechainFrom(t, ls, 14)
			}},
		{name: "reordered and re-chained", kind: KindRechained, first: 21, last: 30,
			mutate: func(t *testing.T, _ testEnv, ls [][]byte) [][]byte {
				ls[24], ls[25] = ls[25], ls[24]
				return rechainFrom(t, ls, 24)
			}},
		{name: "re-chained from scratch with another key", kind: KindRechained, first: 1, last: 10,
			mutate: func(t *testing.T, env testEnv, _ [][]byte) [][]byte {
				for _, p := range []string{env.path, env.path + CheckpointSuffix} {
					if err := os.Remove(p); err != nil {
						t.Fatal(err)
					}
				}
				attacker := env
				attacker.state = filepath.Join(env.dir, "attacker-state")
				attacker.write(t, tamperN, Options{CheckpointEvery: tamperEvery, Sync: SyncNone})
				return lines(t, env.path)
			}},
		{name: "re-chained from scratch, checkpoints beside deleted", kind: KindRechained, first: 1, last: 10,
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				if err := os.Remove(env.path + CheckpointSuffix); err != nil {
					t.Fatal(err)
				}
				for i := range ls {
					ls[i] = setMember(t, ls[i], "allowed", boolValue(true))
				}
				return rechainFrom(t, ls, 0)
			}},
		{name: "forged checkpoint", kind: KindForgedCheckpoint, inProblem: "signed by a key other than",
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				v, _ := parseObject(ls[29])
				h, _ := v.get("hash")
				rec, err := signCheckpoint(attackerKey(t), Checkpoint{Size: 30, Head: h.str, Time: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if err := appendRecord(env.path+CheckpointSuffix, rec, "", writersWait); err != nil {
					t.Fatal(err)
				}
				return ls
			}},
		{name: "forged checkpoint over appended entries", kind: KindForgedCheckpoint, first: 31, last: 35,
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				prev := ls[29]
				for i := range 5 {
					v, _ := parseObject(prev)
					h, _ := v.get("hash")
					prev, _ = rehash(t, ls[i], uint64(31+i), h.str)
					ls = append(ls, prev)
				}
				v, _ := parseObject(prev)
				h, _ := v.get("hash")
				rec, err := signCheckpoint(attackerKey(t), Checkpoint{Size: 35, Head: h.str, Time: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if err := appendRecord(env.path+CheckpointSuffix, rec, "", writersWait); err != nil {
					t.Fatal(err)
				}
				return ls
			}},
		{name: "bad signature", kind: KindForgedCheckpoint, inProblem: "signature does not verify",
			mutate: func(t *testing.T, env testEnv, ls [][]byte) [][]byte {
				p := env.path + CheckpointSuffix
				b, _ := os.ReadFile(p)
				b = bytes.Replace(b, []byte("size 10\n"), []byte("size 11\n"), 1)
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return ls
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			env.write(t, tamperN, Options{CheckpointEvery: tamperEvery, Sync: SyncNone})
			ls := tc.mutate(t, env, lines(t, env.path))
			writeLines(t, env.path, ls)
			rep := env.verify(t)
			if rep.OK {
				t.Fatalf("tampering not detected: %+v", rep)
			}
			if rep.Kind != tc.kind || rep.FirstBad != tc.first || (tc.last != 0 && rep.LastBad != tc.last) {
				t.Fatalf("got kind %s, first bad %d, last bad %d (%s); want %s, %d, %d", rep.Kind, rep.FirstBad, rep.LastBad, rep.Problem, tc.kind, tc.first, tc.last)
			}
			if !strings.Contains(rep.Problem, tc.inProblem) || strings.Contains(rep.Problem, "\n") {
				t.Fatalf("problem %q: want one line containing %q", rep.Problem, tc.inProblem)
			}
		})
	}
}

// Re-formatting a line (whitespace, member order, escapes) is not a change:
// the hash covers the values through the canonical encoding.
func TestVerifyReformattedLineStillVerifies(t *testing.T) {
	env := newEnv(t)
	env.write(t, 5, Options{})
	ls := lines(t, env.path)
	v, err := parseObject(ls[2])
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("{ ")
	for i := len(v.obj) - 1; i >= 0; i-- { // reversed order, spaced out
		m := v.obj[i]
		b.Write(appendQuoted(nil, m.key))
		b.WriteString(" : ")
		if m.key == "agent_name" { // escape its first letter
			fmt.Fprintf(&b, `"\u%04x%s"`, m.val.str[0], m.val.str[1:])
		} else {
			b.Write(appendJSON(nil, m.val))
		}
		if i > 0 {
			b.WriteString(" ,\t")
		}
	}
	b.WriteString(" }")
	if bytes.Equal(b.Bytes(), ls[2]) {
		t.Fatal("test did not change the line")
	}
	ls[2] = b.Bytes()
	writeLines(t, env.path, ls)
	if rep := env.verify(t); !rep.OK {
		t.Fatalf("re-formatted line: %+v", rep)
	}
}

func TestVerifyTornTail(t *testing.T) {
	env := newEnv(t)
	env.write(t, 5, Options{})
	// A writer without checkpoints appended two more, then crashed halfway
	// through a third line.
	l := env.open(t, Options{CheckpointEvery: -1})
	for i := range 2 {
		if err := l.Append(t.Context(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	ls := lines(t, env.path)
	partial := ls[6][:len(ls[6])/2]
	f, err := os.OpenFile(env.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(partial); err != nil {
		t.Fatal(err)
	}
	f.Close()

	rep := env.verify(t)
	if !rep.OK || rep.Entries != 7 || rep.TornBytes != len(partial) || rep.Signed != 5 {
		t.Fatalf("torn tail: %+v", rep)
	}
	evs, err := Query(env.path, Filter{})
	if err != nil || len(evs) != 7 {
		t.Fatalf("Query over a torn tail: %d events, %v", len(evs), err)
	}

	// The next writer removes the torn bytes and says so in the log.
	l2 := env.open(t, Options{})
	if err := l2.Append(t.Context(), sampleEvent(9)); err != nil {
		t.Fatal(err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	rep = env.verify(t)
	if !rep.OK || rep.Entries != 9 || rep.TornBytes != 0 {
		t.Fatalf("after repair: %+v", rep)
	}
	evs, _ = Query(env.path, Filter{Type: Alert})
	if len(evs) != 1 || evs[0].ID != 8 || !strings.Contains(evs[0].Reason, "removed") {
		t.Fatalf("repair alert: %+v", evs)
	}
	l.Close() // the crashed writer's handle; its checkpoint covers 9 entries
	if rep := env.verify(t); !rep.OK {
		t.Fatalf("after the first writer's Close: %+v", rep)
	}
}

func TestVerifyMissingNewlineOnly(t *testing.T) {
	env := newEnv(t)
	env.write(t, 4, Options{})
	b, _ := os.ReadFile(env.path)
	if err := os.WriteFile(env.path, bytes.TrimSuffix(b, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	// The last line is whole but lost its newline: still an entry.
	if rep := env.verify(t); !rep.OK || rep.Entries != 4 || rep.TornBytes != 0 {
		t.Fatalf("missing newline: %+v", rep)
	}
	env.write(t, 1, Options{})
	rep := env.verify(t)
	if !rep.OK || rep.Entries != 6 {
		t.Fatalf("after the next writer: %+v", rep)
	}
	evs, _ := Query(env.path, Filter{Type: Alert})
	if len(evs) != 1 || !strings.Contains(evs[0].Reason, "newline added") {
		t.Fatalf("repair alert: %+v", evs)
	}
}

func TestVerifyWithoutKey(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	pub, err := os.ReadFile(filepath.Join(env.state, stateSubdir, pubFile))
	if err != nil {
		t.Fatal(err)
	}
	// Another machine: no state directory; the checkpoints cannot be
	// checked without the verifier key...
	other := filepath.Join(env.dir, "elsewhere")
	if _, err := Verify(env.path, VerifyOptions{StateDir: other}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("no key: err = %v, want ErrNoKey", err)
	}
	// ...and with it they can.
	rep, err := Verify(env.path, VerifyOptions{StateDir: other, VerifierKey: strings.TrimSpace(string(pub))})
	if err != nil || !rep.OK || rep.Checkpoints != 1 {
		t.Fatalf("with --key: %+v, %v", rep, err)
	}
	// A wrong verifier key makes every checkpoint a forgery.
	_, vkey, _ := note.GenerateKey(rand.Reader, keyName)
	rep, err = Verify(env.path, VerifyOptions{StateDir: other, VerifierKey: vkey})
	if err != nil || rep.OK || rep.Kind != KindForgedCheckpoint {
		t.Fatalf("wrong key: %+v, %v", rep, err)
	}
}

func TestVerifyWarnsWhenCheckpointsBesideAreGone(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	if err := os.Remove(env.path + CheckpointSuffix); err != nil {
		t.Fatal(err)
	}
	rep := env.verify(t)
	if !rep.OK || rep.Checkpoints != 1 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "fewer than") {
		t.Fatalf("%+v", rep)
	}
}

func TestVerifyCountsCheckpointsBesideInWords(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	one, err := os.ReadFile(env.path + CheckpointSuffix)
	if err != nil {
		t.Fatal(err)
	}
	env.write(t, 2, Options{})
	if err := os.WriteFile(env.path+CheckpointSuffix, one, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := env.verify(t)
	if !rep.OK || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "holds 1 checkpoint, fewer than the 2 in the state directory") {
		t.Fatalf("%+v", rep)
	}
}

func TestVerifyTornCheckpoint(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	p := env.path + CheckpointSuffix
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(b, b[:len(b)-20]...), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := env.verify(t)
	if !rep.OK || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "cut short") {
		t.Fatalf("%+v", rep)
	}
}
