//go:build linux

package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red-team tests of the audit log's tamper evidence (redteam4). Each attack
// must fail, and a legitimate control beside it must succeed.

// TestRedteam4EncodingTricks edits entries in ways that might keep the
// canonical encoding equal while changing what the line says, or that add
// lines the chain does not cover. Each must fail Verify; the controls
// (re-encodings that keep the content) must pass.
func TestRedteam4EncodingTricks(t *testing.T) {
	type tc struct {
		name   string
		mutate func(t *testing.T, ls [][]byte) [][]byte
		ok     bool // a control: the content is unchanged
	}
	dup := func(key, val string) func(t *testing.T, ls [][]byte) [][]byte {
		return func(t *testing.T, ls [][]byte) [][]byte {
			// A second member of the same name, before or after the first:
			// two JSON readers could disagree on which one counts.
			l := ls[3]
			ls[3] = append([]byte(`{"`+key+`":`+val+`,`), l[1:]...)
			return ls
		}
	}
	replace := func(i int, old, new string) func(t *testing.T, ls [][]byte) [][]byte {
		return func(t *testing.T, ls [][]byte) [][]byte {
			if !bytes.Contains(ls[i], []byte(old)) {
				t.Fatalf("line %d lacks %q: %s", i+1, old, ls[i])
			}
			ls[i] = bytes.Replace(ls[i], []byte(old), []byte(new), 1)
			return ls
		}
	}
	tests := []tc{
		{"duplicate allowed member first", dup("allowed", "true"), false},
		{"duplicate resource member first", dup("resource", `"x"`), false},
		{"duplicate hash member", dup("hash", `"00"`), false},
		{"duplicate key in details", replace(3, `"details":{`, `"details":{"ok":true,`), false},
		{"number 3 written 3.0", replace(3, `"i":3`, `"i":3.0`), false},
		{"number 3 written 3e0", replace(3, `"i":3`, `"i":3e0`), false},
		{"number 3 written 0x3", replace(3, `"i":3`, `"i":0x3`), false},
		{"id 4 written 4.0", replace(3, `"id":4,`, `"id":4.0,`), false},
		{"id 4 written 04", replace(3, `"id":4,`, `"id":04,`), false},
		{"member removed", func(t *testing.T, ls [][]byte) [][]byte {
			ls[3] = bytes.Replace(ls[3], []byte(`"rule":"rule-3",`), nil, 1)
			return ls
		}, false},
		{"member renamed with a look-alike", replace(3, `"resource":`, `"resourc\u0435":`), false},
		// The writer stored "é" (U+00E9); an editor normalising to NFD writes
		// e + U+0301: a different string, however alike on screen.
		{"NFD instead of NFC", replace(5, "caf\u00e9", "cafe\u0301"), false},
		{"byte order mark before the first line", func(t *testing.T, ls [][]byte) [][]byte {
			ls[0] = append([]byte("\xef\xbb\xbf"), ls[0]...)
			return ls
		}, false},
		{"blank line inserted", func(t *testing.T, ls [][]byte) [][]byte {
			return append(ls[:3:3], append([][]byte{{}}, ls[3:]...)...)
		}, false},
		{"NUL byte after a line", func(t *testing.T, ls [][]byte) [][]byte {
			ls[2] = append(ls[2], 0)
			return ls
		}, false},
		{"second object on a line", func(t *testing.T, ls [][]byte) [][]byte {
			ls[2] = append(append(ls[2], ' '), ls[2]...)
			return ls
		}, false},
		{"invalid UTF-8 in a string", replace(3, `"because"`, "\"bec\xffause\""), false},
		{"lone surrogate escape for U+FFFD", replace(3, `"because"`, `"bec\ud800ause"`), false},
		// Controls: the same content, written differently.
		{"control: CRLF line endings", func(t *testing.T, ls [][]byte) [][]byte {
			for i := range ls {
				ls[i] = append(ls[i], '\r')
			}
			return ls
		}, true},
		{"control: trailing spaces", func(t *testing.T, ls [][]byte) [][]byte {
			ls[3] = append(ls[3], ' ', '\t')
			return ls
		}, true},
		{"control: escaped letters and solidus", replace(3, `"because"`, `"\u0062ec\u0061use"`), true},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			l := env.open(t, Options{})
			for i := range 8 {
				e := sampleEvent(i)
				if i == 5 {
					e.Reason = "caf\u00e9"
				}
				if err := l.Append(context.Background(), e); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			ls := lines(t, env.path)
			writeLines(t, env.path, c.mutate(t, ls))
			rep, err := Verify(env.path, VerifyOptions{StateDir: env.state})
			switch {
			case c.ok && (err != nil || !rep.OK):
				t.Errorf("control: the content is unchanged, yet %+v %v", rep, err)
			case !c.ok && err == nil && rep.OK:
				t.Errorf("attack succeeded: the edited log verifies: %+v", rep)
			}
		})
	}
}

// TestRedteam4CheckpointGames truncates, splices and swaps checkpoint files
// with what an attacker can find on the machine: older copies of the log's
// own checkpoints, another log signed by the same key.
func TestRedteam4CheckpointGames(t *testing.T) {
	// build writes 12 entries with a checkpoint every 5 (5, 10, and 12 at
	// Close), keeping a copy of the checkpoints file as it was after 5.
	build := func(t *testing.T, env testEnv) (older []byte) {
		env.write(t, 5, Options{CheckpointEvery: 5})
		older, err := os.ReadFile(env.path + CheckpointSuffix)
		if err != nil {
			t.Fatal(err)
		}
		env.write(t, 7, Options{CheckpointEvery: 5})
		if rep := env.verify(t); !rep.OK || rep.Entries != 12 {
			t.Fatalf("control: %+v", rep)
		}
		return older
	}
	t.Run("truncated exactly at a periodic checkpoint", func(t *testing.T) {
		env := newEnv(t)
		build(t, env)
		writeLines(t, env.path, lines(t, env.path)[:10])
		if rep := env.verify(t); rep.OK || rep.Kind != KindTruncated || rep.FirstBad != 11 {
			t.Errorf("attack succeeded or misreported: %+v", rep)
		}
	})
	t.Run("truncated at the first run's end, older checkpoints file put back", func(t *testing.T) {
		env := newEnv(t)
		older := build(t, env)
		writeLines(t, env.path, lines(t, env.path)[:5])
		if err := os.WriteFile(env.path+CheckpointSuffix, older, 0o600); err != nil {
			t.Fatal(err)
		}
		if rep := env.verify(t); rep.OK || rep.Kind != KindTruncated {
			t.Errorf("attack succeeded or misreported: %+v", rep)
		}
	})
	t.Run("another log of the same key, with its checkpoints, put in place", func(t *testing.T) {
		env := newEnv(t)
		build(t, env)
		other := env
		other.path = filepath.Join(env.dir, "other", "b.log")
		other.write(t, 12, Options{CheckpointEvery: 5})
		if rep := other.verify(t); !rep.OK {
			t.Fatalf("control: the other log: %+v", rep)
		}
		for _, suf := range []string{"", CheckpointSuffix} {
			b, err := os.ReadFile(other.path + suf)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(env.path+suf, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if rep := env.verify(t); rep.OK {
			t.Errorf("attack succeeded: another log signed by the same key verifies in this log's place: %+v", rep)
		}
	})
	t.Run("two logs spliced, the tail re-chained onto the head", func(t *testing.T) {
		env := newEnv(t)
		build(t, env)
		other := env
		other.path = filepath.Join(env.dir, "other", "b.log")
		other.write(t, 12, Options{CheckpointEvery: 5})
		spliced := append(lines(t, env.path)[:10:10], lines(t, other.path)[10:]...)
		writeLines(t, env.path, rechainFrom(t, spliced, 10))
		if rep := env.verify(t); rep.OK {
			t.Errorf("attack succeeded: a spliced log verifies: %+v", rep)
		}
	})
	t.Run("a log that starts mid-chain (the first entry names a previous hash)", func(t *testing.T) {
		env := newEnv(t)
		build(t, env)
		ls := lines(t, env.path)[5:]
		// Renumber from 1, keeping the first entry's link to entry 5.
		v, _ := parseObject(ls[0])
		prev, _ := v.get("prev_hash")
		var out [][]byte
		p := prev.str
		for i, l := range ls {
			var nl []byte
			nl, p = rehash(t, l, uint64(i+1), p)
			out = append(out, nl)
		}
		writeLines(t, env.path, out)
		if err := os.Remove(env.path + CheckpointSuffix); err != nil {
			t.Fatal(err)
		}
		if rep := env.verify(t); rep.OK || rep.FirstBad != 1 {
			t.Errorf("attack succeeded or misreported: %+v", rep)
		}
	})
	t.Run("a line longer than MaxEntryBytes", func(t *testing.T) {
		env := newEnv(t)
		build(t, env)
		ls := lines(t, env.path)
		ls[6] = setMember(t, ls[6], "reason", strValue(strings.Repeat("A", 3*MaxEntryBytes)))
		writeLines(t, env.path, ls)
		rep, err := Verify(env.path, VerifyOptions{StateDir: env.state})
		if err == nil && rep.OK {
			t.Errorf("attack succeeded: %+v", rep)
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Errorf("unexpected error %v", err)
		}
	})
}
