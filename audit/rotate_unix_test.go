//go:build unix

package audit

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A rotation that cannot be done (here: a name on another file system)
// leaves everything as it was, and the log can still be rotated.
func TestRotateFailureLeavesNothingBehind(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	other, err := os.MkdirTemp("/dev/shm", "agentbox-rotate-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	if sameDevice(t, other, env.dir) {
		t.Skip("/dev/shm is on the same file system as the test's directory")
	}
	to := filepath.Join(other, "x.log")
	if _, err := Rotate(env.path, to, RotateOptions{StateDir: env.state}); err == nil || !strings.Contains(err.Error(), "move "+env.path) {
		t.Fatalf("Rotate across file systems: %v", err)
	}
	for _, p := range []string{to, to + CheckpointSuffix, stateCheckpointPath(filepath.Join(env.state, stateSubdir), to)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s was left behind (%v)", p, err)
		}
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 3 || len(rep.Rotated) != 0 {
		t.Fatalf("after the failed rotation: %+v", rep)
	}
	env.rotate(t, filepath.Join(env.dir, "x.log"))
}

func sameDevice(t *testing.T, a, b string) bool {
	t.Helper()
	var sa, sb syscall.Stat_t
	if err := errors.Join(syscall.Stat(a, &sa), syscall.Stat(b, &sb)); err != nil {
		t.Fatal(err)
	}
	return sa.Dev == sb.Dev
}

// A writer holds the log open from Open to Close: Rotate refuses to move
// the log under it, whichever writer it is (flock locks belong to the open
// file description, so two Logs in one process count as two writers), and
// leaves the log as it was. Once every writer has closed, it rotates.
func TestRotateRefusesAnOpenLog(t *testing.T) {
	env := newEnv(t)
	env.write(t, 2, Options{})
	a, b := env.open(t, Options{}), env.open(t, Options{}) // writers share the log
	for _, l := range []*Log{a, b} {
		if err := l.Append(context.Background(), sampleEvent(1)); err != nil {
			t.Fatal(err)
		}
	}
	to := filepath.Join(env.dir, "agent.1.log")
	for _, open := range []*Log{a, b} {
		before, _ := os.ReadFile(env.path)
		_, err := Rotate(env.path, to, RotateOptions{StateDir: env.state})
		if !errors.Is(err, ErrLogInUse) || !strings.Contains(err.Error(), "a writer has "+env.path+" open") ||
			!strings.Contains(err.Error(), "rotate it after the writer closes it") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("Rotate of a log a writer has open: %v", err)
		}
		if after, _ := os.ReadFile(env.path); string(after) != string(before) {
			t.Fatal("the refused rotation changed the log")
		}
		if _, err := os.Lstat(to); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the refused rotation left %s (%v)", to, err)
		}
		if err := open.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if r := env.rotate(t, to); r.Size != 4 {
		t.Fatalf("rotation after the writers closed: %+v", r)
	}
	if rep := verifyAt(t, env, to); !rep.OK || rep.Entries != 4 {
		t.Fatalf("rotated log: %+v", rep)
	}
}

// A writer opening the log while a rotation holds the writers' lock waits
// until the rotation lets go, so it never gets the file being moved.
func TestOpenWaitsForRotation(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	rotating, err := excludeWriters(env.path) // what Rotate holds while it moves the log
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan *Log, 1)
	go func() {
		l, err := Open(env.path, Options{StateDir: env.state, Logger: testLogger(t)})
		if err != nil {
			t.Error(err)
		}
		opened <- l
	}()
	select {
	case <-opened:
		t.Fatal("Open returned while a rotation held the writers' lock")
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := Rotate(env.path, filepath.Join(env.dir, "agent.1.log"), RotateOptions{StateDir: env.state}); !errors.Is(err, ErrLogInUse) {
		t.Fatalf("a second rotation: %v, want ErrLogInUse", err)
	}
	if err := rotating.Close(); err != nil {
		t.Fatal(err)
	}
	var l *Log
	select {
	case l = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("Open still waits after the rotation let go")
	}
	if l == nil {
		t.FailNow()
	}
	if err := l.Append(context.Background(), sampleEvent(3)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 4 {
		t.Fatalf("after the wait: %+v", rep)
	}
}

// TestOpenLockHeldTooLong: whoever can open a log's writers' lock, even
// read-only, can hold it exclusively. Open waits for it only for a while
// (a rotation lets go), says that it waits, and then fails with an error
// that names the lock file; once the lock is let go, Open succeeds.
func TestOpenLockHeldTooLong(t *testing.T) {
	wait, warn := writersWait, writersWarn
	writersWait, writersWarn = time.Second, 200*time.Millisecond
	t.Cleanup(func() { writersWait, writersWarn = wait, warn })
	env := newEnv(t)
	env.write(t, 3, Options{})
	lock := env.path + WritersLockSuffix
	holder, err := os.Open(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}

	var logged strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	start := time.Now()
	failed := make(chan error, 1)
	go func() {
		l, err := Open(env.path, Options{StateDir: env.state, Logger: logger})
		if err == nil {
			l.Close()
		}
		failed <- err
	}()
	select {
	case err = <-failed:
	case <-time.After(writersWait + 10*time.Second):
		holder.Close() // lets the Open go, once the test has failed
		t.Fatalf("Open still waits %v after the lock was taken; the bound is %v", time.Since(start), writersWait)
	}
	took := time.Since(start)
	t.Logf("after %v: %v", took, err)
	if err == nil {
		t.Fatal("Open succeeded while another process held the writers' lock exclusively")
	}
	if took < writersWait {
		t.Errorf("Open gave up after %v, before the bound %v", took, writersWait)
	}
	if !strings.Contains(err.Error(), lock) || strings.Contains(err.Error(), "\n") {
		t.Errorf("the error does not name the lock file %s on one line: %v", lock, err)
	}
	mu.Lock()
	if !strings.Contains(logged.String(), "waiting for the writers' lock") || !strings.Contains(logged.String(), lock) {
		t.Errorf("Open did not say that it waited for %s; logged:\n%s", lock, logged.String())
	}
	mu.Unlock()

	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	l := env.open(t, Options{})
	if err := l.Append(context.Background(), sampleEvent(3)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 4 {
		t.Fatalf("after the lock was let go: %+v", rep)
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
