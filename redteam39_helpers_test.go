//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt39Root is a writable root every sandbox user may write.
func rt39Root(t *testing.T) string {
	t.Helper()
	w := hostDir(t)
	if err := os.Chmod(w, 0o777); err != nil {
		t.Fatal(err)
	}
	return w
}

// rt39Plant starts a command on w that makes a repository r, runs
// writeConfig (a shell command, in w) to write its config, and stays for
// stay: meanwhile another Exec on w plans its sandbox (an agent running a
// command beside one still going). The sweep after the first renames r
// away, too late. It returns once the repository is planted; the channel
// gets the command's error.
func rt39Plant(t *testing.T, m *agentbox.Manager, w, writeConfig string, stay time.Duration) chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := m.Exec(context.Background(),
			"mkdir -p r/.git/objects r/.git/refs && echo ref: refs/heads/main > r/.git/HEAD && "+
				writeConfig+" && echo planted > ready && sleep "+strings.TrimSuffix(stay.String(), "s"),
			agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(60*time.Second))
		done <- err
	}()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(w, "ready")); err == nil {
			return done
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the first command did not plant the repository")
	return done
}

// rt39Run runs echo on w in the background; the channel gets its error.
func rt39Run(m *agentbox.Manager, w string) chan error {
	done := make(chan error, 1)
	go func() {
		res, err := m.Exec(context.Background(), "echo ran",
			agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(60*time.Second))
		if err == nil && !strings.Contains(res.Stdout, "ran") {
			err = os.ErrInvalid
		}
		done <- err
	}()
	return done
}

// rtAwaitFile waits up to d for path to exist.
func rtAwaitFile(path string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}
