package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testKDF keeps Argon2id cheap so the suite stays fast. The production
// parameters are exercised by TestDefaultKDFParams and the benchmarks.
var testKDF = KDFParams{Time: 1, MemoryKiB: 64, Threads: 1}

var testPass = []byte("correct horse battery staple")

func testOpts(extra ...Option) []Option {
	return append([]Option{WithKDFParams(testKDF)}, extra...)
}

// newVault creates an empty vault in a fresh directory.
func newVault(t *testing.T, extra ...Option) (*Vault, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", FileName)
	v, err := Create(path, testPass, testOpts(extra...)...)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	return v, path
}

func mustPut(t *testing.T, v *Vault, name, value string) {
	t.Helper()
	if err := v.Put(name, []byte(value)); err != nil {
		t.Fatalf("Put(%s): %v", name, err)
	}
}

func mustGet(t *testing.T, v *Vault, name string) string {
	t.Helper()
	s, err := v.Get(name)
	if err != nil {
		t.Fatalf("Get(%s): %v", name, err)
	}
	defer s.Wipe()
	return string(s.Bytes())
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertUnchanged fails if the file at path no longer holds want, or if a
// temporary file was left next to it.
func assertUnchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	if got := readBytes(t, path); !bytes.Equal(got, want) {
		t.Errorf("vault file changed:\nbefore %s\nafter  %s", want, got)
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp"))
	if len(tmps) > 0 {
		t.Errorf("temporary files left behind: %v", tmps)
	}
}

// stepClock returns a clock that advances by one second on every call.
func stepClock(start time.Time) func() time.Time {
	t := start
	return func() time.Time { t = t.Add(time.Second); return t }
}
