//go:build unix

package audit

import (
	"os"
	"syscall"
	"testing"
)

func TestLogFileModes(t *testing.T) {
	env := newEnv(t)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	env.write(t, 1, Options{})
	for p, want := range map[string]os.FileMode{env.path: 0o600, env.path + CheckpointSuffix: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}
