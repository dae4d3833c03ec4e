//go:build unix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The signing key must never be readable by anyone but its owner, whatever
// the umask, and a key that others could read or swap is refused.
func TestKeyFileIsPrivate(t *testing.T) {
	env := newEnv(t)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	env.write(t, 1, Options{})
	dir := filepath.Join(env.state, stateSubdir)
	for p, want := range map[string]os.FileMode{
		env.state:                         0o700,
		dir:                               0o700,
		filepath.Join(dir, checkpointDir): 0o700,
		filepath.Join(dir, keyFile):       0o600,
		filepath.Join(dir, pubFile):       0o644,
		mustOne(t, filepath.Join(dir, checkpointDir, "*"+CheckpointSuffix)): 0o600,
		mustOne(t, filepath.Join(dir, checkpointDir, "*"+liveSuffix)):       0o700,
	} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	// No temporary key files are left behind.
	if m, _ := filepath.Glob(filepath.Join(dir, ".key*")); len(m) != 0 {
		t.Errorf("left over: %v", m)
	}
}

func mustOne(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) != 1 {
		t.Fatalf("glob %s: %v %v", pattern, m, err)
	}
	return m[0]
}

func TestUnsafeKeyRefused(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, key string)
	}{
		{"group readable", func(t *testing.T, key string) { chmod(t, key, 0o640) }},
		{"world readable", func(t *testing.T, key string) { chmod(t, key, 0o604) }},
		{"world writable", func(t *testing.T, key string) { chmod(t, key, 0o602) }},
		{"symlink", func(t *testing.T, key string) {
			target := key + ".real"
			if err := os.Rename(key, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, key); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, key string) {
			if err := os.Remove(key); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(key, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 1, Options{})
			key := filepath.Join(env.state, stateSubdir, keyFile)
			tc.spoil(t, key)
			if _, err := Open(env.path, Options{StateDir: env.state}); !errors.Is(err, ErrUnsafeKey) {
				t.Fatalf("Open: err = %v, want ErrUnsafeKey", err)
			}
			// Verify still checks the checkpoints (with the public key)
			// but warns that they prove less.
			rep := env.verify(t)
			if len(rep.Warnings) == 0 || !strings.Contains(strings.Join(rep.Warnings, " "), "unsafe signing key") {
				t.Fatalf("no warning: %+v", rep)
			}
		})
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func TestUnsafeStateDirRefused(t *testing.T) {
	env := newEnv(t)
	if err := os.MkdirAll(env.state, 0o777); err != nil {
		t.Fatal(err)
	}
	chmod(t, env.state, 0o777)
	if _, err := Open(env.path, Options{StateDir: env.state}); err == nil || !strings.Contains(err.Error(), "unsafe directory") {
		t.Fatalf("Open with a world-writable state dir: %v", err)
	}
}

// Processes opening logs for the first time at once agree on one key.
func TestKeyCreationRace(t *testing.T) {
	env := newEnv(t)
	dir, err := auditDir(env.state, true)
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	hashes := make([]uint32, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := loadOrCreateSigner(dir)
			if err != nil {
				t.Error(err)
				return
			}
			hashes[i] = s.KeyHash()
		}()
	}
	wg.Wait()
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Fatalf("different keys: %x", hashes)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, pubFile))
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifierKeyOf(filepath.Join(dir, keyFile))
	if err != nil || strings.TrimSpace(string(pub)) != v {
		t.Fatalf("key.pub %q does not match the key (%q, %v)", pub, v, err)
	}
}
