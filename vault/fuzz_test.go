package vault

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the file parser: it must never panic,
// must fail only with ErrCorrupt or ErrUnsupportedVersion, and whatever it
// accepts must survive an encode and parse round trip unchanged. Normal runs
// use the seed corpus only; go test -fuzz=FuzzParse explores further.
func FuzzParse(f *testing.F) {
	path := filepath.Join(f.TempDir(), FileName)
	v, err := Create(path, testPass, testOpts()...)
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []string{"A", "B_2"} {
		if err := v.Put(n, []byte("value of "+n)); err != nil {
			f.Fatal(err)
		}
	}
	v.Close()
	good, err := readFileBytes(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(bytes.Replace(good, []byte(`"version": 1`), []byte(`"version": 2`), 1))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"credentials":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("parse error of an unexpected kind: %v", err)
			}
			return
		}
		enc, err := p.encode()
		if err != nil {
			t.Fatal(err)
		}
		q, err := parse(enc)
		if err != nil {
			t.Fatalf("re-parse of an accepted file failed: %v", err)
		}
		enc2, _ := q.encode()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the file:\n%s\n%s", enc, enc2)
		}
		if !p.sameVault(q) {
			t.Fatal("round trip changed the header")
		}
	})
}

func readFileBytes(path string) ([]byte, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return f.encode()
}
