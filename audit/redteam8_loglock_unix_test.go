//go:build unix

package audit

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestRedteam8LogFlockHangsWriters: writers append under an exclusive
// flock(2) on the log file itself, taken with a blocking lockFile and no
// bound. Whoever can open the log (read access is enough) can hold that
// lock: Open then waits for ever (it reads the tail under the lock before
// it returns), and a writer that has the log open hangs in its committer,
// so Close never returns and agentbox run never finishes. The writers'
// lock FILE.lock, which anyone who can open it may hold too, is waited
// for only writersWait; the log's own lock is not bounded at all.
//
// The attack fails when Open and Close return (with an error or not)
// within writersWait and a margin; the control is the same without the
// attacker's lock.
//
// Fixed: the log's lock is waited for at most writersWait (lockWithin).
func TestRedteam8LogFlockHangsWriters(t *testing.T) {
	wait, warn := writersWait, writersWarn
	writersWait, writersWarn = time.Second, 200*time.Millisecond
	t.Cleanup(func() { writersWait, writersWarn = wait, warn })
	bound := writersWait + 5*time.Second

	// holdLog takes an exclusive flock on the log as the attacker, and
	// returns how to let go.
	holdLog := func(t *testing.T, path string) func() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatal(err)
		}
		return func() { f.Close() }
	}
	// within runs fn, failing the test if it has not returned by bound;
	// release then lets fn finish.
	within := func(t *testing.T, what string, release func(), fn func()) {
		done := make(chan struct{})
		go func() { defer close(done); fn() }()
		select {
		case <-done:
		case <-time.After(bound):
			t.Errorf("HUNG: %s still waits after %v for the attacker's flock on the log", what, bound)
			release()
			<-done
		}
	}

	for _, attack := range []bool{false, true} {
		name := func(s string) string {
			if attack {
				return s + ", log locked by the attacker"
			}
			return "control: " + s
		}
		t.Run(name("open"), func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			release := func() {}
			if attack {
				release = holdLog(t, env.path)
			}
			defer release()
			within(t, "Open", release, func() {
				l, err := Open(env.path, Options{StateDir: env.state, Logger: testLogger(t)})
				if err == nil {
					l.Close()
				} else if !attack {
					t.Errorf("control: Open: %v", err)
				}
			})
		})
		t.Run(name("append and close"), func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			l := env.open(t, Options{})
			release := func() {}
			if attack {
				release = holdLog(t, env.path)
			}
			defer release()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := l.Append(ctx, sampleEvent(3))
			if !attack && err != nil {
				t.Errorf("control: Append: %v", err)
			}
			within(t, "Close", release, func() {
				if err := l.Close(); err != nil && !attack {
					t.Errorf("control: Close: %v", err)
				}
			})
		})
	}
}

// TestRedteam8CheckpointsFlockHangsClose: a writer appends each checkpoint
// to FILE.checkpoints beside the log under a blocking exclusive flock
// (appendRecord), with no bound. Whoever can open that file holds the
// lock: the writer's Close, which signs a checkpoint, never returns (nor
// does the committer at a periodic checkpoint). The attack fails when
// Close returns (with an error or not) within a few seconds; the control
// is the same without the attacker's lock.
//
// Fixed: the lock of the checkpoints beside the log is waited for at most
// besideWait; the state directory's copy is written all the same.
func TestRedteam8CheckpointsFlockHangsClose(t *testing.T) {
	const bound = 6 * time.Second
	for _, attack := range []bool{false, true} {
		name := "control: close"
		if attack {
			name = "close, checkpoints beside the log locked by the attacker"
		}
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			l := env.open(t, Options{})
			if err := l.Append(context.Background(), sampleEvent(3)); err != nil {
				t.Fatal(err)
			}
			release := func() {}
			if attack {
				f, err := os.Open(env.path + CheckpointSuffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
					t.Fatal(err)
				}
				release = func() { f.Close() }
			}
			defer release()
			done := make(chan error, 1)
			go func() { done <- l.Close() }()
			select {
			case err := <-done:
				if !attack && err != nil {
					t.Errorf("control: Close: %v", err)
				}
			case <-time.After(bound):
				t.Errorf("HUNG: Close still waits after %v for the attacker's flock on %s", bound, env.path+CheckpointSuffix)
				release()
				<-done
			}
		})
	}
}
