//go:build linux

package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Red-team tests of the audit log's tamper evidence (redteam4). Each attack
// must fail, and a legitimate control beside it must succeed.

// rt4FakeLog writes, in dir, a log of n entries chained from scratch by an
// attacker with a key of their own (their own state directory), and removes
// the checkpoints their key signed: only the chain is left, as an attacker
// without the audit key can make it.
func rt4FakeLog(t *testing.T, dir string, n int) string {
	t.Helper()
	fake := testEnv{dir: dir, state: filepath.Join(dir, "attacker-state"), path: filepath.Join(dir, "agent.log")}
	l := fake.open(t, Options{})
	for i := range n {
		e := sampleEvent(i)
		e.Resource = "harmless"
		if err := l.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(fake.path + CheckpointSuffix); err != nil {
		t.Fatal(err)
	}
	return fake.path
}

// TestRedteam4SymlinkedLogHidesItsCheckpoints replaces a signed log by a
// symbolic link to a log re-chained from scratch elsewhere. Verify looks up
// the state directory's copy of the checkpoints under the path with
// symlinks resolved, so it finds none and reports the fake log intact.
func TestRedteam4SymlinkedLogHidesItsCheckpoints(t *testing.T) {
	for _, how := range []string{"file link", "directory link"} {
		t.Run(how, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 10, Options{})
			if rep := env.verify(t); !rep.OK || rep.Checkpoints != 1 {
				t.Fatalf("control: the untouched log: %+v", rep)
			}
			fake := rt4FakeLog(t, t.TempDir(), 10)

			// Control: the same fake content put in place as a regular
			// file is caught by the checkpoint in the state directory.
			orig, err := os.ReadFile(env.path)
			if err != nil {
				t.Fatal(err)
			}
			fb, err := os.ReadFile(fake)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(env.path, fb, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(env.path + CheckpointSuffix); err != nil {
				t.Fatal(err)
			}
			if rep := env.verify(t); rep.OK {
				t.Fatalf("control: a re-chained regular file verified: %+v", rep)
			}
			if err := os.WriteFile(env.path, orig, 0o600); err != nil {
				t.Fatal(err)
			}

			// Attack: the same content reached through a symbolic link.
			switch how {
			case "file link":
				if err := os.Remove(env.path); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(fake, env.path); err != nil {
					t.Fatal(err)
				}
			case "directory link":
				logs := filepath.Dir(env.path)
				if err := os.RemoveAll(logs); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Dir(fake), logs); err != nil {
					t.Fatal(err)
				}
			}
			// Refusing to verify through the link is a failed attack too.
			rep, err := Verify(env.path, VerifyOptions{StateDir: env.state})
			if err != nil {
				t.Logf("refused: %v", err)
			}
			if err == nil && rep.OK {
				t.Errorf("attack succeeded: a log re-chained from scratch, reached through a %s, verifies as intact "+
					"(entries %d, %d checkpoints): the state directory's checkpoints for %s were never consulted",
					how, rep.Entries, rep.Checkpoints, env.path)
			}
		})
	}
}

// TestRedteam4NextWriterSignsAChainBehindADirectoryLink: after the log's
// directory is swapped for a link to a directory holding a log re-chained
// from scratch, the next writer at the same path finds no checkpoints under
// the resolved path (checkNotShrunk), continues the forged chain and signs
// it, in the state directory too. The checkpoints of the original path are
// still there and contradict it (control: with the directory made real
// again, Verify reports the re-chaining).
func TestRedteam4NextWriterSignsAChainBehindADirectoryLink(t *testing.T) {
	env := newEnv(t)
	env.write(t, 10, Options{})
	fake := rt4FakeLog(t, t.TempDir(), 10)
	logs := filepath.Dir(env.path)
	if err := os.RemoveAll(logs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(fake), logs); err != nil {
		t.Fatal(err)
	}
	l, err := Open(env.path, Options{StateDir: env.state, Logger: testLogger(t)})
	if err == nil {
		if err := l.Append(context.Background(), sampleEvent(1)); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if rep := env.verify(t); rep.OK {
			t.Errorf("attack succeeded: the next writer continued the forged chain behind the link and signed it: %+v", rep)
		}
	}
	// Control: the original path's checkpoints reveal the forgery once
	// the directory is real.
	b, err := os.ReadFile(env.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(logs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env.path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); rep.OK {
		t.Errorf("control: the forged chain in a real directory verified: %+v", rep)
	}
}
