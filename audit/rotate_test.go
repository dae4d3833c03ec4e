package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (e testEnv) rotate(t *testing.T, to string) Rotation {
	t.Helper()
	r, err := Rotate(e.path, to, RotateOptions{StateDir: e.state})
	if err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	return r
}

func verifyAt(t *testing.T, e testEnv, path string) Report {
	t.Helper()
	rep, err := Verify(path, VerifyOptions{StateDir: e.state})
	if err != nil {
		t.Fatalf("Verify %s: %v", path, err)
	}
	return rep
}

// Rotating moves the log and its checkpoints; the moved log and the new log
// at the old path both verify, and the new one says where the old went.
func TestRotateThenBothLogsVerify(t *testing.T) {
	env := newEnv(t)
	env.write(t, 4, Options{})
	env.write(t, 3, Options{})
	rot1 := filepath.Join(env.dir, "logs", "agent.1.log")
	r := env.rotate(t, rot1)
	if r.Size != 7 || r.To != rot1 || len(r.Head) != 64 {
		t.Fatalf("rotation %+v", r)
	}
	for _, p := range []string{env.path, env.path + CheckpointSuffix} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still exists (%v)", p, err)
		}
	}
	if rep := verifyAt(t, env, rot1); !rep.OK || rep.Entries != 7 || rep.Signed != 7 || len(rep.Warnings) != 0 {
		t.Fatalf("rotated log: %+v", rep)
	}
	env.write(t, 2, Options{}) // a new chain at the old path
	rep := env.verify(t)
	if !rep.OK || rep.Entries != 2 || rep.Signed != 2 || len(rep.Warnings) != 0 {
		t.Fatalf("new log: %+v", rep)
	}
	if len(rep.Rotated) != 1 || rep.Rotated[0].To != rot1 || rep.Rotated[0].Size != 7 || rep.Rotated[0].Head != r.Head {
		t.Fatalf("new log's rotations: %+v", rep.Rotated)
	}
	// Again: the second chain moves too, the first stays intact.
	rot2 := filepath.Join(env.dir, "agent.2.log")
	env.rotate(t, rot2)
	env.write(t, 1, Options{})
	for p, n := range map[string]int{rot1: 7, rot2: 2, env.path: 1} {
		if rep := verifyAt(t, env, p); !rep.OK || rep.Entries != n || len(rep.Warnings) != 0 {
			t.Fatalf("%s: %+v", p, rep)
		}
	}
	if rep := env.verify(t); len(rep.Rotated) != 1 || rep.Rotated[0].To != rot2 {
		t.Fatalf("after the second rotation: %+v", rep.Rotated)
	}
}

// Without Rotate, a log that is gone or shorter than what the key signed
// for its path is not continued nor restarted: that would leave neither the
// old log nor the new one verifiable. Put back, the old log verifies.
func TestOpenRefusesAShrunkLog(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(t *testing.T, env testEnv, moved string)
		entries string // in the message
	}{
		{"moved with its checkpoints", func(t *testing.T, env testEnv, moved string) {
			mustRename(t, env.path, moved)
			mustRename(t, env.path+CheckpointSuffix, moved+CheckpointSuffix)
		}, "has 0 entries but the audit key signed 7"},
		{"deleted", func(t *testing.T, env testEnv, moved string) {
			mustRename(t, env.path, moved)
		}, "has 0 entries"},
		{"emptied", func(t *testing.T, env testEnv, moved string) {
			mustCopy(t, env.path, moved)
			writeLines(t, env.path, nil)
		}, "has 0 entries"},
		{"truncated", func(t *testing.T, env testEnv, moved string) {
			mustCopy(t, env.path, moved)
			writeLines(t, env.path, lines(t, env.path)[:5])
		}, "has 5 entries but the audit key signed 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 4, Options{})
			env.write(t, 3, Options{})
			moved := filepath.Join(env.dir, "moved.log")
			tc.mutate(t, env, moved)
			_, err := Open(env.path, Options{StateDir: env.state, Logger: testLogger(t)})
			if !errors.Is(err, ErrLogShrunk) || !strings.Contains(err.Error(), tc.entries) ||
				!strings.Contains(err.Error(), "agentbox audit rotate --log "+env.path) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Open: %v; want ErrLogShrunk saying %q and how to rotate", err, tc.entries)
			}
			if _, err := os.Lstat(env.path); tc.name != "emptied" && tc.name != "truncated" && !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("Open created %s (%v)", env.path, err)
			}
			// Nothing was written: put back, the log verifies.
			mustRename(t, moved, env.path)
			if _, err := os.Stat(moved + CheckpointSuffix); err == nil {
				mustRename(t, moved+CheckpointSuffix, env.path+CheckpointSuffix)
			}
			if rep := env.verify(t); !rep.OK || rep.Entries != 7 {
				t.Fatalf("put back: %+v", rep)
			}
			env.write(t, 1, Options{})
		})
	}
}

// Rotate moves only an intact log with entries, to a name no log had, and
// leaves the log as it was when it refuses.
func TestRotateRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, env testEnv) (to string)
		is    error
		inErr string
	}{
		{"missing log", func(t *testing.T, env testEnv) string {
			return filepath.Join(env.dir, "x.log")
		}, os.ErrNotExist, ""},
		{"empty log", func(t *testing.T, env testEnv) string {
			writeLines(t, env.path, nil)
			return filepath.Join(env.dir, "x.log")
		}, nil, "has no entries; there is nothing to rotate"},
		{"edited log", func(t *testing.T, env testEnv) string {
			env.write(t, 5, Options{})
			ls := lines(t, env.path)
			ls[2] = setMember(t, ls[2], "allowed", boolValue(false))
			writeLines(t, env.path, ls)
			return filepath.Join(env.dir, "x.log")
		}, ErrNotIntact, "is edited at entry 3; a damaged log stays where it is: run agentbox verify"},
		{"truncated log", func(t *testing.T, env testEnv) string {
			env.write(t, 5, Options{})
			writeLines(t, env.path, lines(t, env.path)[:3])
			return filepath.Join(env.dir, "x.log")
		}, ErrNotIntact, "is truncated at entry 4"},
		{"destination exists", func(t *testing.T, env testEnv) string {
			env.write(t, 2, Options{})
			to := filepath.Join(env.dir, "x.log")
			writeLines(t, to, nil)
			return to
		}, nil, "rotate to a new name"},
		{"destination had a log", func(t *testing.T, env testEnv) string {
			env.write(t, 2, Options{})
			to := filepath.Join(env.dir, "x.log")
			env.rotate(t, to)
			mustRename(t, to, filepath.Join(env.dir, "y.log"))
			mustRename(t, to+CheckpointSuffix, filepath.Join(env.dir, "y.log")+CheckpointSuffix)
			env.write(t, 2, Options{})
			return to
		}, nil, "a log was at"},
		{"onto itself", func(t *testing.T, env testEnv) string {
			env.write(t, 2, Options{})
			return env.path
		}, nil, "rotate to a new name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			if err := os.MkdirAll(filepath.Dir(env.path), 0o700); err != nil {
				t.Fatal(err)
			}
			to := tc.setup(t, env)
			before, _ := os.ReadFile(env.path)
			_, err := Rotate(env.path, to, RotateOptions{StateDir: env.state})
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.inErr) {
				t.Fatalf("Rotate: %v; want %v containing %q", err, tc.is, tc.inErr)
			}
			if after, _ := os.ReadFile(env.path); string(after) != string(before) {
				t.Fatal("the log changed")
			}
		})
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustCopy(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A rotation closes the chain it moves: an entry added to the rotated log
// afterwards, chained as a writer chains it, is tampering, not a live
// log's unsigned tail (found by red-team round 53).
func TestRotatedLogClosed(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	rot := filepath.Join(env.dir, "agent.1.log")
	env.rotate(t, rot)
	if rep := verifyAt(t, env, rot); !rep.OK || rep.Entries != 3 {
		t.Fatalf("rotated log before: %+v", rep)
	}
	moved := env
	moved.path = rot
	moved.write(t, 1, Options{})
	rep := verifyAt(t, env, rot)
	if rep.OK || rep.Kind != KindInserted || rep.FirstBad != 4 || !strings.Contains(rep.Problem, "rotated") {
		t.Fatalf("rotated log after an append: %+v", rep)
	}
	// The new log at the old path is not affected.
	env.write(t, 2, Options{})
	if rep := env.verify(t); !rep.OK {
		t.Fatalf("new log: %+v", rep)
	}
}
