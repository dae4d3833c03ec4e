package vault

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

func TestRoundTrip(t *testing.T) {
	v, path := newVault(t)
	values := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-0123456789",
		"GMAIL_TOKEN":       "ya29.a0AfH6SMB\x00binary\xff",
		"_":                 "x",
	}
	for n, val := range values {
		mustPut(t, v, n, val)
	}
	w, err := Open(path, testPass)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer w.Close()
	for _, vv := range []*Vault{v, w} {
		for n, want := range values {
			if got := mustGet(t, vv, n); got != want {
				t.Errorf("Get(%s) = %q, want %q", n, got, want)
			}
		}
		var names []string
		for _, e := range vv.List() {
			names = append(names, e.Name)
			if e.Created.IsZero() || !e.Updated.Equal(e.Created) {
				t.Errorf("entry %s: created %v updated %v", e.Name, e.Created, e.Updated)
			}
		}
		if got := strings.Join(names, ","); got != "ANTHROPIC_API_KEY,GMAIL_TOKEN,_" {
			t.Errorf("List names = %s", got)
		}
	}
	// Each Get returns its own buffer: wiping one does not wipe the next.
	s, _ := w.Get("ANTHROPIC_API_KEY")
	s.Wipe()
	if s.Len() != 0 || mustGet(t, w, "ANTHROPIC_API_KEY") != values["ANTHROPIC_API_KEY"] {
		t.Error("Wipe did not empty the secret, or wiped the stored value")
	}
}

func TestNoPlaintextOnDisk(t *testing.T) {
	v, path := newVault(t)
	val := "sk-live-PLAINTEXT-MARKER-42"
	mustPut(t, v, "KEY", val)
	data := readBytes(t, path)
	for _, enc := range []string{val, base64.StdEncoding.EncodeToString([]byte(val)), "PLAINTEXT-MARKER"} {
		if bytes.Contains(data, []byte(enc)) {
			t.Fatalf("vault file contains the value (%q)", enc)
		}
	}
	if bytes.Contains(data, testPass) {
		t.Fatal("vault file contains the passphrase")
	}
}

func TestRotateKeepsCreated(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	v, path := newVault(t, WithClock(stepClock(start)))
	rotated, err := v.Set("TOKEN", []byte("old"))
	if err != nil || rotated {
		t.Fatalf("first Set: rotated=%v err=%v", rotated, err)
	}
	before := readBytes(t, path)
	first, _ := v.Entry("TOKEN")
	rotated, err = v.Set("TOKEN", []byte("new-value"))
	if err != nil || !rotated {
		t.Fatalf("second Set: rotated=%v err=%v", rotated, err)
	}
	w, err := Open(path, testPass)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	second, _ := w.Entry("TOKEN")
	if !second.Created.Equal(first.Created) || !second.Updated.After(first.Updated) {
		t.Errorf("rotation: before %+v after %+v; want same created, later updated", first, second)
	}
	if got := mustGet(t, w, "TOKEN"); got != "new-value" {
		t.Errorf("after rotation Get = %q", got)
	}
	if len(w.List()) != 1 {
		t.Errorf("rotation duplicated the entry: %v", w.List())
	}
	// The old ciphertext is gone from the file.
	var oldCT []byte
	for _, e := range mustParse(t, before).Credentials {
		oldCT = e.Ciphertext
	}
	if bytes.Contains(readBytes(t, path), []byte(base64.StdEncoding.EncodeToString(oldCT))) {
		t.Error("old ciphertext still in the file after rotation")
	}
}

func TestDelete(t *testing.T) {
	v, path := newVault(t)
	mustPut(t, v, "A", "1")
	mustPut(t, v, "B", "2")
	if err := v.Delete("A"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get("A"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	before := readBytes(t, path)
	if err := v.Delete("A"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	assertUnchanged(t, path, before)
	w, _ := Open(path, testPass)
	defer w.Close()
	if l := w.List(); len(l) != 1 || l[0].Name != "B" || mustGet(t, w, "B") != "2" {
		t.Errorf("after Delete: %v", l)
	}
}

func TestNames(t *testing.T) {
	valid := []string{"A", "_", "_X", "ANTHROPIC_API_KEY", "K8S_TOKEN_2", strings.Repeat("A", MaxNameLen)}
	invalid := []string{"", "a", "lower_case", "1ABC", "A-B", "A B", "A.B", "Ä", "A\x00", "sk-live-abcdef", strings.Repeat("A", MaxNameLen+1)}
	for _, n := range valid {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", n, err)
		}
	}
	v, path := newVault(t)
	mustPut(t, v, "OK", "v")
	before := readBytes(t, path)
	for _, n := range invalid {
		ops := map[string]error{
			"ValidateName": ValidateName(n),
			"Put":          v.Put(n, []byte("value")),
			"Delete":       v.Delete(n),
		}
		_, ops["Get"] = v.Get(n)
		for op, err := range ops {
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("%s(%q) = %v, want ErrInvalidName", op, n, err)
				continue
			}
			if len(n) > 1 && strings.Contains(err.Error(), n) {
				t.Errorf("%s(%q): error repeats the name: %v", op, n, err)
			}
		}
	}
	assertUnchanged(t, path, before)
}

func TestInvalidValue(t *testing.T) {
	v, path := newVault(t)
	before := readBytes(t, path)
	for _, val := range [][]byte{nil, {}, make([]byte, MaxValueSize+1)} {
		if err := v.Put("K", val); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("Put(%d bytes) = %v, want ErrInvalidValue", len(val), err)
		}
	}
	assertUnchanged(t, path, before)
	if err := v.Put("K", make([]byte, MaxValueSize)); err != nil {
		t.Errorf("Put(MaxValueSize) = %v", err)
	}
}

func TestWrongPassphrase(t *testing.T) {
	v, path := newVault(t)
	mustPut(t, v, "KEY", "value")
	before := readBytes(t, path)
	for _, pass := range [][]byte{[]byte("wrong"), append([]byte(nil), testPass[:len(testPass)-1]...), append(append([]byte(nil), testPass...), ' ')} {
		_, err := Open(path, pass)
		if !errors.Is(err, ErrWrongPassphrase) || err.Error() != "wrong vault passphrase" {
			t.Errorf("Open(wrong) = %v", err)
		}
		_, err = OpenOrCreate(path, pass, testOpts()...)
		if !errors.Is(err, ErrWrongPassphrase) {
			t.Errorf("OpenOrCreate(wrong) = %v", err)
		}
		if _, err := Create(path, pass, testOpts()...); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create over an existing vault = %v, want fs.ErrExist", err)
		}
	}
	assertUnchanged(t, path, before)
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", FileName)
	_, err := Open(path, testPass)
	if !errors.Is(err, ErrNoVault) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	}
	if paths.Exists(filepath.Dir(path)) {
		t.Error("Open created the directory")
	}
	if _, err := Create(path, nil, testOpts()...); err == nil {
		t.Error("Create with an empty passphrase succeeded")
	}
	if paths.Exists(path) {
		t.Error("failed Create left a file")
	}
}

func TestModes(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "share", "agentbox")
	t.Setenv(paths.EnvDataDir, dataDir)
	path, err := DefaultPath()
	if err != nil || path != filepath.Join(dataDir, FileName) {
		t.Fatalf("DefaultPath = %q, %v", path, err)
	}
	v, err := OpenOrCreate(path, testPass, testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	check := func(when string) {
		t.Helper()
		for p, want := range map[string]fs.FileMode{dataDir: 0o700 | fs.ModeDir, path: 0o600, path + lockSuffix: 0o600} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("%s: %s has mode %v, want %v", when, p, fi.Mode(), want)
			}
		}
	}
	check("after create")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	mustPut(t, v, "KEY", "value")
	check("after put")
}

func TestUnsafeDirRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := OpenOrCreate(filepath.Join(dir, FileName), testPass, testOpts()...)
	if !errors.Is(err, paths.ErrUnsafeDir) {
		t.Errorf("vault in a world-writable directory: %v, want paths.ErrUnsafeDir", err)
	}
}

func TestReplacedVault(t *testing.T) {
	v, path := newVault(t)
	mustPut(t, v, "A", "1")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, []byte("another passphrase"), testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := readBytes(t, path)
	if err := v.Put("B", []byte("2")); !errors.Is(err, ErrChanged) {
		t.Errorf("Put into a replaced vault = %v, want ErrChanged", err)
	}
	if err := v.Reload(); !errors.Is(err, ErrChanged) {
		t.Errorf("Reload of a replaced vault = %v, want ErrChanged", err)
	}
	assertUnchanged(t, path, before)
}

func TestReload(t *testing.T) {
	v, path := newVault(t)
	w, err := Open(path, testPass)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustPut(t, w, "NEW", "fresh")
	if _, err := v.Get("NEW"); !errors.Is(err, ErrNotFound) {
		t.Errorf("stale Get = %v, want ErrNotFound before Reload", err)
	}
	if err := v.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, v, "NEW"); got != "fresh" {
		t.Errorf("after Reload Get = %q", got)
	}
}

func TestCloseWipesKey(t *testing.T) {
	v, _ := newVault(t)
	mustPut(t, v, "A", "1")
	k := v.keys
	v.Close()
	if !bytes.Equal(k.seal, make([]byte, keyLen)) || !bytes.Equal(k.check, make([]byte, keyLen)) {
		t.Error("Close left key material in memory")
	}
	if _, err := v.Get("A"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close = %v", err)
	}
	if err := v.Put("A", []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close = %v", err)
	}
}

func TestProvider(t *testing.T) {
	v, _ := newVault(t)
	mustPut(t, v, "API_KEY", "abc")
	var p Provider = v
	s, err := p.Credential(context.Background(), "API_KEY")
	if err != nil || string(s.Bytes()) != "abc" {
		t.Fatalf("Credential = %v, %v", s, err)
	}
	if _, err := p.Credential(context.Background(), "MISSING"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Credential(missing) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Credential(ctx, "API_KEY"); !errors.Is(err, context.Canceled) {
		t.Errorf("Credential(cancelled) = %v", err)
	}
}

func TestLockTimeout(t *testing.T) {
	v, path := newVault(t, WithLockTimeout(50*time.Millisecond))
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- withLock(path, time.Second, func() error { close(held); <-release; return nil })
	}()
	<-held
	before := readBytes(t, path)
	if err := v.Put("A", []byte("1")); !errors.Is(err, ErrLocked) {
		t.Errorf("Put while locked = %v, want ErrLocked", err)
	}
	assertUnchanged(t, path, before)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustPut(t, v, "A", "1")
}

func TestStaleTempRemoved(t *testing.T) {
	v, path := newVault(t)
	stale := filepath.Join(filepath.Dir(path), "."+FileName+".123.tmp")
	if err := os.WriteFile(stale, []byte("half a vault"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustPut(t, v, "A", "1")
	if paths.Exists(stale) {
		t.Error("stale temporary file survived a write")
	}
}

func TestDefaultKDFParams(t *testing.T) {
	p := DefaultKDFParams()
	if p.Time != 3 || p.MemoryKiB != 64<<10 || p.Threads < 1 || p.Threads > 4 {
		t.Errorf("DefaultKDFParams = %+v", p)
	}
	if err := p.validate(); err != nil {
		t.Error(err)
	}
	if testing.Short() {
		return
	}
	// One real create with the production parameters (one Argon2id run; Open
	// runs the same derivation and is covered with small parameters).
	path := filepath.Join(t.TempDir(), FileName)
	v, err := Create(path, testPass)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	mustPut(t, v, "K", "v")
	f := mustParse(t, readBytes(t, path))
	if f.KDF.KDFParams != p {
		t.Errorf("stored params %+v, want %+v", f.KDF.KDFParams, p)
	}
	if mustGet(t, v, "K") != "v" {
		t.Error("round trip with default parameters failed")
	}
}

func mustParse(t *testing.T, data []byte) *file {
	t.Helper()
	f, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLimitCoreDumps(t *testing.T) {
	if err := LimitCoreDumps(); err != nil {
		t.Fatal(err)
	}
	if cur, ok := coreLimit(); ok && cur != 0 {
		t.Errorf("RLIMIT_CORE soft limit = %d after LimitCoreDumps", cur)
	}
}
