package vault

import (
	"path/filepath"
	"strconv"
	"testing"
)

// benchVault returns a vault with 20 credentials made with params.
func benchVault(b *testing.B, params KDFParams) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), FileName)
	v, err := Create(path, testPass, WithKDFParams(params))
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	for i := range 20 {
		if err := v.Put("KEY_"+strconv.Itoa(i), []byte("sk-0123456789abcdef0123456789abcdef")); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// BenchmarkOpenDefaultKDF is the cost of unlocking with the production
// Argon2id parameters: what a wrong-passphrase guess costs an attacker.
func BenchmarkOpenDefaultKDF(b *testing.B) {
	path := benchVault(b, DefaultKDFParams())
	for b.Loop() {
		v, err := Open(path, testPass)
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
}

// BenchmarkOpenTestKDF is Open with the tiny test parameters: file read,
// parse and validation without the key derivation.
func BenchmarkOpenTestKDF(b *testing.B) {
	path := benchVault(b, testKDF)
	for b.Loop() {
		v, err := Open(path, testPass)
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
}

// BenchmarkGet is one decryption, what a Provider call costs.
func BenchmarkGet(b *testing.B) {
	v, err := Open(benchVault(b, testKDF), testPass)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	for b.Loop() {
		s, err := v.Get("KEY_7")
		if err != nil {
			b.Fatal(err)
		}
		s.Wipe()
	}
}

// BenchmarkPut is one locked, atomic, fsynced rotation.
func BenchmarkPut(b *testing.B) {
	v, err := Open(benchVault(b, testKDF), testPass)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	val := []byte("sk-rotated-0123456789abcdef")
	for b.Loop() {
		if err := v.Put("KEY_7", val); err != nil {
			b.Fatal(err)
		}
	}
}
