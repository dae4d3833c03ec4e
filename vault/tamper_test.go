package vault

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The values stored before every tampering case. None may appear in an error.
var tamperValues = map[string]string{"ALPHA": "alpha-secret-value", "BRAVO": "bravo-secret-value-longer"}

// tamperFixture builds a vault holding tamperValues and returns its path and
// bytes.
func tamperFixture(t *testing.T) (string, []byte) {
	t.Helper()
	v, path := newVault(t)
	for n, val := range tamperValues {
		mustPut(t, v, n, val)
	}
	return path, readBytes(t, path)
}

// doc is the vault file as generic JSON, for editing it the way an attacker
// or a broken disk would.
type doc map[string]any

func decodeDoc(t *testing.T, data []byte) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d doc) entry(name string) map[string]any {
	for _, e := range d["credentials"].([]any) {
		if m := e.(map[string]any); m["name"] == name {
			return m
		}
	}
	panic("no entry " + name)
}

func (d doc) kdf() map[string]any { return d["kdf"].(map[string]any) }

// flipB64 flips one bit of a base64 field.
func flipB64(m map[string]any, key string) {
	b, _ := base64.StdEncoding.DecodeString(m[key].(string))
	b[len(b)/2] ^= 0x01
	m[key] = base64.StdEncoding.EncodeToString(b)
}

// redigest recomputes the unkeyed digest, as an attacker who knows the format
// would, so that only the key check stands in the way.
func (d doc) redigest(t *testing.T) {
	t.Helper()
	raw, _ := json.Marshal(d)
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	d["digest"] = base64.StdEncoding.EncodeToString(digest(f.header(), f.KeyCheck))
}

func TestTamperedEntries(t *testing.T) {
	// Cases where the file still opens but the named entries must fail to
	// decrypt with an *EntryError wrapping ErrCorrupt, while the others work.
	other := func(t *testing.T) []byte { // an entry sealed by another vault with the same passphrase
		v, _ := newVault(t)
		mustPut(t, v, "ALPHA", "other-vault-value")
		return readBytes(t, v.Path())
	}
	cases := []struct {
		name    string
		edit    func(t *testing.T, d doc)
		corrupt []string // entries that must fail to open
		missing []string // entries that must be ErrNotFound
	}{
		{"edited ciphertext", func(_ *testing.T, d doc) { flipB64(d.entry("ALPHA"), "ciphertext") }, []string{"ALPHA"}, nil},
		{"edited nonce", func(_ *testing.T, d doc) { flipB64(d.entry("BRAVO"), "nonce") }, []string{"BRAVO"}, nil},
		{"swapped ciphertexts and nonces", func(_ *testing.T, d doc) {
			a, b := d.entry("ALPHA"), d.entry("BRAVO")
			a["ciphertext"], b["ciphertext"] = b["ciphertext"], a["ciphertext"]
			a["nonce"], b["nonce"] = b["nonce"], a["nonce"]
		}, []string{"ALPHA", "BRAVO"}, nil},
		{"swapped names", func(_ *testing.T, d doc) {
			a, b := d.entry("ALPHA"), d.entry("BRAVO")
			a["name"], b["name"] = "BRAVO", "ALPHA"
		}, []string{"ALPHA", "BRAVO"}, nil},
		{"renamed entry", func(_ *testing.T, d doc) { d.entry("ALPHA")["name"] = "CHARLIE" }, []string{"CHARLIE"}, []string{"ALPHA"}},
		{"edited created time", func(_ *testing.T, d doc) {
			d.entry("ALPHA")["created"] = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano)
		}, []string{"ALPHA"}, nil},
		{"edited updated time", func(_ *testing.T, d doc) {
			d.entry("BRAVO")["updated"] = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano)
		}, []string{"BRAVO"}, nil},
		{"truncated ciphertext", func(_ *testing.T, d doc) {
			e := d.entry("ALPHA")
			b, _ := base64.StdEncoding.DecodeString(e["ciphertext"].(string))
			e["ciphertext"] = base64.StdEncoding.EncodeToString(b[:len(b)-1])
		}, []string{"ALPHA"}, nil},
		{"entry copied from another vault", func(t *testing.T, d doc) {
			o := decodeDoc(t, other(t))
			for k, val := range o.entry("ALPHA") {
				d.entry("ALPHA")[k] = val
			}
		}, []string{"ALPHA"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, orig := tamperFixture(t)
			d := decodeDoc(t, orig)
			tc.edit(t, d)
			edited, _ := json.Marshal(d)
			writeRaw(t, path, edited)
			v, err := Open(path, testPass)
			if err != nil {
				t.Fatalf("Open: %v (entry damage must not lock the whole vault)", err)
			}
			defer v.Close()
			bad := map[string]bool{}
			for _, n := range tc.corrupt {
				bad[n] = true
				s, err := v.Get(n)
				var ee *EntryError
				if !errors.As(err, &ee) || ee.Name != n || !errors.Is(err, ErrCorrupt) {
					t.Errorf("Get(%s) = %v, %v; want *EntryError{%s} wrapping ErrCorrupt", n, s.Len(), err, n)
				} else {
					t.Logf("Get(%s): %v", n, err)
					assertNoValues(t, err)
				}
				if err := v.Verify(n); !errors.Is(err, ErrCorrupt) {
					t.Errorf("Verify(%s) = %v", n, err)
				}
			}
			for _, n := range tc.missing {
				bad[n] = true
				if _, err := v.Get(n); !errors.Is(err, ErrNotFound) {
					t.Errorf("Get(%s) = %v, want ErrNotFound", n, err)
				}
			}
			for n, want := range tamperValues {
				if !bad[n] {
					if got := mustGet(t, v, n); got != want {
						t.Errorf("untouched entry %s = %q", n, got)
					}
				}
			}
		})
	}
}

func TestTamperedFile(t *testing.T) {
	// Cases where Open itself must refuse, and no operation may write.
	cases := []struct {
		name string
		edit func(t *testing.T, d doc, raw []byte) []byte // returns the new file bytes
		want error
	}{
		{"edited argon2 time", docEdit(func(d doc) { d.kdf()["time"] = 2.0 }), ErrCorrupt},
		{"edited argon2 memory", docEdit(func(d doc) { d.kdf()["memory_kib"] = 128.0 }), ErrCorrupt},
		{"edited argon2 threads", docEdit(func(d doc) { d.kdf()["threads"] = 2.0 }), ErrCorrupt},
		{"argon2 memory out of bounds", docEdit(func(d doc) { d.kdf()["memory_kib"] = float64(1 << 30) }), ErrCorrupt},
		{"argon2 time zero", docEdit(func(d doc) { d.kdf()["time"] = 0.0 }), ErrCorrupt},
		{"edited salt", docEdit(func(d doc) { flipB64(d.kdf(), "salt") }), ErrCorrupt},
		{"edited vault id", docEdit(func(d doc) { flipB64(d, "id") }), ErrCorrupt},
		{"edited key check", docEdit(func(d doc) { flipB64(d, "key_check") }), ErrCorrupt},
		{"edited digest", docEdit(func(d doc) { flipB64(d, "digest") }), ErrCorrupt},
		{"other algorithm", docEdit(func(d doc) { d.kdf()["algorithm"] = "pbkdf2" }), ErrCorrupt},
		// An attacker who recomputes the unkeyed digest still meets the key check.
		{"edited params, digest recomputed", func(t *testing.T, d doc, _ []byte) []byte {
			d.kdf()["time"] = 2.0
			d.redigest(t)
			return mustMarshal(d)
		}, ErrWrongPassphrase},
		{"edited vault id, digest recomputed", func(t *testing.T, d doc, _ []byte) []byte {
			flipB64(d, "id")
			d.redigest(t)
			return mustMarshal(d)
		}, ErrWrongPassphrase},
		{"newer version", docEdit(func(d doc) { d["version"] = 2.0 }), ErrUnsupportedVersion},
		{"version zero", docEdit(func(d doc) { d["version"] = 0.0 }), ErrCorrupt},
		{"no version", docEdit(func(d doc) { delete(d, "version") }), ErrCorrupt},
		{"unknown field", docEdit(func(d doc) { d["extra"] = true }), ErrCorrupt},
		{"duplicate entry", docEdit(func(d doc) {
			c := d["credentials"].([]any)
			d["credentials"] = append(c, c[0])
		}), ErrCorrupt},
		{"invalid name in file", docEdit(func(d doc) { d.entry("ALPHA")["name"] = "alpha-secret-value" }), ErrCorrupt},
		{"short nonce", docEdit(func(d doc) { d.entry("ALPHA")["nonce"] = "AAAA" }), ErrCorrupt},
		{"bad base64", docEdit(func(d doc) { d.entry("ALPHA")["ciphertext"] = "!!!" }), ErrCorrupt},
		{"truncated to a quarter", truncate(0.25), ErrCorrupt},
		{"truncated to half", truncate(0.5), ErrCorrupt},
		{"truncated by 3 bytes", func(_ *testing.T, _ doc, raw []byte) []byte { return raw[:len(raw)-3] }, ErrCorrupt},
		{"empty file", func(*testing.T, doc, []byte) []byte { return nil }, ErrCorrupt},
		{"trailing data", func(_ *testing.T, _ doc, raw []byte) []byte { return append(raw, `{"version":1}`...) }, ErrCorrupt},
		{"not JSON", func(*testing.T, doc, []byte) []byte { return []byte("\x00\x01garbage") }, ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, orig := tamperFixture(t)
			damaged := tc.edit(t, decodeDoc(t, orig), orig)
			writeRaw(t, path, damaged)
			start := time.Now()
			_, err := Open(path, testPass)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
			t.Logf("Open: %v", err)
			if time.Since(start) > 5*time.Second {
				t.Errorf("refusing took %v", time.Since(start))
			}
			assertNoValues(t, err)
			if _, err := OpenOrCreate(path, testPass, testOpts()...); !errors.Is(err, tc.want) {
				t.Errorf("OpenOrCreate = %v, want %v (must not replace a damaged vault)", err, tc.want)
			}
			assertUnchanged(t, path, damaged)
		})
	}
}

// A vault opened before the file was damaged must not write over the damage
// (that would silently drop the other entries).
func TestWriteOverDamageRefused(t *testing.T) {
	v, path := newVault(t)
	mustPut(t, v, "A", "1")
	damaged := readBytes(t, path)
	damaged = damaged[:len(damaged)/2]
	writeRaw(t, path, damaged)
	if err := v.Put("B", []byte("2")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Put over a damaged file = %v, want ErrCorrupt", err)
	}
	if err := v.Delete("A"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Delete over a damaged file = %v, want ErrCorrupt", err)
	}
	assertUnchanged(t, path, damaged)
}

func docEdit(f func(doc)) func(*testing.T, doc, []byte) []byte {
	return func(_ *testing.T, d doc, _ []byte) []byte { f(d); return mustMarshal(d) }
}

func truncate(frac float64) func(*testing.T, doc, []byte) []byte {
	return func(_ *testing.T, _ doc, raw []byte) []byte { return raw[:int(float64(len(raw))*frac)] }
}

func mustMarshal(d doc) []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	return b
}

func writeRaw(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(tmps) > 0 {
		t.Fatalf("temporary files before the test: %v", tmps)
	}
}

func assertNoValues(t *testing.T, err error) {
	t.Helper()
	for _, val := range tamperValues {
		if strings.Contains(err.Error(), val) {
			t.Errorf("error message contains a value: %v", err)
		}
	}
	if strings.Contains(err.Error(), string(testPass)) {
		t.Errorf("error message contains the passphrase: %v", err)
	}
}
