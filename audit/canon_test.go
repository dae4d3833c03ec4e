package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The canonical encoding, byte by byte, as documented in doc.go.
func TestCanonicalEncodingBytes(t *testing.T) {
	v, err := parseObject([]byte(`{"b":true,"hash":"ignored","a":[1.50,"x"],"c":null,"é":{"z":false,"y":-2e3}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := appendCanonObject(nil, v.obj, "hash")
	want := []byte("o\x04" +
		"\x01a" + "a\x02" + "d\x041.50" + "s\x01x" +
		"\x01b" + "t" +
		"\x01c" + "n" +
		"\x02é" + "o\x02" + "\x01y" + "d\x04-2e3" + "\x01z" + "f")
	if !bytes.Equal(got, want) {
		t.Fatalf("canonical encoding\n got %q\nwant %q", got, want)
	}
}

// A fixed event hashes to a fixed value: a change of the canonical encoding
// or of the line format must be deliberate (and versioned).
func TestGoldenEntry(t *testing.T) {
	e := Event{ID: 1, PrevHash: Genesis, Timestamp: fixedTime, AgentID: "a1b2c3", AgentName: "email-sorter",
		EventType: NetworkDeny, Resource: "evil.example:443", Rule: "network.deny", Reason: "not in allow-list",
		Details: map[string]any{"port": 443, "sni": "evil.example"}}
	ms, err := e.members()
	if err != nil {
		t.Fatal(err)
	}
	h, _ := entryHash(ms, nil)
	ms[1].val = strValue(h)
	line := string(appendJSON(nil, objValue(ms)))
	const wantLine = `{"id":1,"hash":"` + goldenHash + `","prev_hash":"genesis","timestamp":"2026-01-02T03:04:05.123456789Z",` +
		`"agent_id":"a1b2c3","agent_name":"email-sorter","event_type":"network_deny","allowed":false,` +
		`"resource":"evil.example:443","rule":"network.deny","reason":"not in allow-list","details":{"port":443,"sni":"evil.example"}}`
	if line != wantLine {
		t.Fatalf("line\n got %s\nwant %s", line, wantLine)
	}
}

// goldenHash was cross-checked with an independent implementation of the
// encoding in doc.go (a few lines of Python over json.loads).
const goldenHash = "e1ad6b976266353d46a6cdf3274ef3a1137a50f6011e9b6d272dc616e90ac637"

func TestParseRejects(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `"x"`, `{`, `{"a":1,}`, `{"a":1}{}`, `{"a":1} x`, `{"a":01}`, `{"a":1.}`, `{"a":-}`,
		`{"a":"\x01"}`, "{\"a\":\"\xff\"}", `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":1,"a":2}`, `{a:1}`,
		`{"a":tru}`, `{"a":[1,]}`, `{"a":"x` + "\n" + `"}`, strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40),
	} {
		if _, err := parseObject([]byte(in)); !errors.Is(err, errSyntax) {
			t.Errorf("%q: err = %v, want a syntax error", in, err)
		}
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"hash":"x","prev_hash":"genesis","allowed":true,"details":{"a":[1,2.5e-3,null,false]}}`,
		`{"a":"\ud83d\ude00 \ud800 \u00e9 \" \\ \/ \b\f\n\r\t"}`, `{ "a" : { } , "b" : [ ] }`, `{"a":1,"a":1}`,
		`{"":-0.0E+1}`, "{\"a\":\"\u2028\"}", `{"a":"\udc00\ud800x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseObject(b)
		want, ok := jsonOracle(b)
		if err != nil {
			if ok && !bytes.ContainsAny(b, "\n") && !strings.Contains(err.Error(), "nested too deeply") {
				t.Fatalf("%q: rejected valid JSON: %v", b, err)
			}
			return
		}
		if !ok {
			t.Fatalf("%q: accepted, but encoding/json (or the duplicate-key check) rejects it", b)
		}
		if got := goValue(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: parsed %#v, encoding/json %#v", b, got, want)
		}
		// Writing the value back and re-reading it keeps its hash.
		again, err := parseObject(appendJSON(nil, v))
		if err != nil {
			t.Fatalf("re-parse of %s: %v", appendJSON(nil, v), err)
		}
		h1, _ := entryHash(v.obj, nil)
		h2, _ := entryHash(again.obj, nil)
		if h1 != h2 {
			t.Fatalf("%q: hash changed through a rewrite", b)
		}
	})
}

// jsonOracle decodes b with encoding/json when b is one JSON object in
// valid UTF-8 without duplicate keys.
func jsonOracle(b []byte) (any, bool) {
	if !utf8.Valid(b) || !json.Valid(b) || dupKeys(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func dupKeys(b []byte) bool {
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]bool
	}
	var st []*frame
	done := func() {
		if n := len(st); n > 0 && st[n-1].obj {
			st[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return false
		}
		if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				st = st[:n-1]
				done()
				continue
			}
			k := tok.(string)
			if st[n-1].keys[k] {
				return true
			}
			st[n-1].keys[k] = true
			st[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			st = append(st, &frame{obj: true, wantKey: true, keys: map[string]bool{}})
		case json.Delim('['):
			st = append(st, &frame{})
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
			done()
		default:
			done()
		}
	}
}

// Whatever strings an event carries (invalid UTF-8, control characters,
// line separators), the line the writer produces is one valid JSON line
// whose hash the reader recomputes, and encoding/json reads the same text.
func FuzzWriterReaderAgree(f *testing.F) {
	f.Add("agent", "rm -rf ~/\n\x00", "\xff\xfe\u2028", "k", "v\"\\")
	f.Fuzz(func(t *testing.T, name, resource, reason, key, val string) {
		e := Event{ID: 3, PrevHash: Genesis, Timestamp: fixedTime, AgentName: name, EventType: Alert,
			Resource: resource, Reason: reason, Details: map[string]any{key: val}}
		ms, err := e.members()
		if err != nil {
			t.Fatal(err)
		}
		h, _ := entryHash(ms, nil)
		ms[1].val = strValue(h)
		line := appendJSON(nil, objValue(ms))
		if bytes.ContainsAny(line, "\n\r") || !json.Valid(line) {
			t.Fatalf("bad line %q", line)
		}
		v, err := parseObject(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		pe, err := entryFields(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := entryHash(pe.obj, nil); got != h || pe.hash != h {
			t.Fatalf("hash mismatch for %q", line)
		}
		var std Event
		if err := json.Unmarshal(line, &std); err != nil {
			t.Fatal(err)
		}
		if std.Resource != validUTF8(resource) || std.Reason != validUTF8(reason) || std.AgentName != validUTF8(name) {
			t.Fatalf("encoding/json reads %q %q %q", std.AgentName, std.Resource, std.Reason)
		}
	})
}
