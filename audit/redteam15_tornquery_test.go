package audit

import (
	"bytes"
	"os"
	"testing"
)

// Red team 15: verify and audit disagree on the log's last line when it
// lacks its newline. Verify takes such a line, if it is not the next
// entry of the chain (its hash is wrong, or it does not link), for a line a
// crashed writer cut short: "not an entry", the log intact. Query (agentbox
// audit) parses it and, when it parses as an entry, lists it among the
// events like any other. So whoever can append to the log adds, after a
// signed log, one line of their choosing without a valid hash (a copy of a
// real entry with "allowed" and "reason" changed, say): `verify` says ✅
// intact (with a note that the last line is cut short and "not an entry"),
// `audit` shows the made-up event with nothing to tell it apart. Query's
// own documentation says a torn last line is skipped; it is skipped only
// when it does not parse.
//
// Fixed: Query skips an unterminated last line unless it is the chain's
// next entry, hash right and linked (parsedEntry.follows), Verify's rule.
func TestRedteam15TornTailQueryDisagrees(t *testing.T) {
	e := newEnv(t)
	e.write(t, 3, Options{})
	ls := lines(t, e.path)
	last := ls[len(ls)-1]
	forged := setMember(t, bytes.Clone(last), "reason", strValue("r15b forged event"))
	forged = setMember(t, forged, "id", numValue("4"))

	cases := []struct {
		name   string
		tail   []byte
		attack bool
	}{
		{"control: the same line with its newline", append(bytes.Clone(forged), '\n'), false},
		{"the line without its newline", forged, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeLines(t, e.path, ls)
			f, err := os.OpenFile(e.path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(tc.tail); err != nil {
				t.Fatal(err)
			}
			f.Close()
			rep := e.verify(t)
			evs, qerr := Query(e.path, Filter{})
			shown := false
			for _, ev := range evs {
				if ev.Reason == "r15b forged event" {
					shown = true
				}
			}
			if !tc.attack {
				if rep.OK {
					t.Fatalf("control: verify says intact with an edited entry: %+v", rep)
				}
				return
			}
			if rep.OK && shown {
				t.Errorf("attack succeeded: verify reports the log intact (%d entries, %d torn bytes, %q) while audit lists the forged event (query error %v)",
					rep.Entries, rep.TornBytes, rep.Problem, qerr)
			}
		})
	}
}
