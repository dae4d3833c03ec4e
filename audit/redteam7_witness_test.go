//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRedteam7UnsignedTailLockSpoofed: someone who can write the log (and
// so open its writers' lock file, which needs only read access) chains a
// forged entry onto a closed, signed log and holds a shared flock on
// FILE.lock while the next run opens it, as a writer would. No writer has
// the log open, yet the next writer is not "alone": it logs no
// audit.unsigned_tail alert, signs the forged entry with its own, and
// Verify reports the log intact with no warning. The control: the same
// forgery without the spoofed lock is named by the alert.
//
// Fixed: a writer marks itself live in the state directory (liveMark),
// and the next one takes a holder of the lock for a writer only if a
// live writer's mark says so. The last subtest leaves, besides, the mark
// of a writer that ended without removing it (killed): it is taken for
// no writer, and removed.
func TestRedteam7UnsignedTailLockSpoofed(t *testing.T) {
	for _, spoof := range []bool{false, true} {
		name := "control: forged, no lock held"
		if spoof {
			name = "forged, lock held by the forger"
		}
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 5, Options{})
			forgeEntry(t, env.path)
			if spoof {
				lf, err := os.Open(env.path + WritersLockSuffix)
				if err != nil {
					t.Fatal(err)
				}
				defer lf.Close()
				if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_SH); err != nil {
					t.Fatal(err)
				}
			}
			env.write(t, 2, Options{})
			rep := env.verify(t)
			as := alertsOf(t, env.path, ruleUnsignedTail)
			if len(as) != 1 || len(rep.Warnings) == 0 {
				t.Fatalf("LAUNDERED: the forged entry 6 was signed with no alert and no warning: alerts %+v, report %+v", as, rep)
			}
		})
	}
	t.Run("forged, lock held, a killed writer's mark left", func(t *testing.T) {
		env := newEnv(t)
		env.write(t, 5, Options{})
		marks := filepath.Join(env.state, "audit", "checkpoints", strings.TrimSuffix(filepath.Base(stateCheckpointPath("", canonical(t, env.path))), CheckpointSuffix)+liveSuffix)
		left := filepath.Join(marks, markPrefix+"0123456789abcdef")
		if err := os.WriteFile(left, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		forgeEntry(t, env.path)
		lf, err := os.Open(env.path + WritersLockSuffix)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_SH); err != nil {
			t.Fatal(err)
		}
		env.write(t, 2, Options{})
		if as := alertsOf(t, env.path, ruleUnsignedTail); len(as) != 1 {
			t.Fatalf("LAUNDERED: alerts %+v", as)
		}
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("the killed writer's mark is still there: %v", err)
		}
		if ents, err := os.ReadDir(marks); err != nil || len(ents) != 0 {
			t.Errorf("marks left after every writer closed: %v %v", ents, err)
		}
	})
}

func canonical(t *testing.T, path string) string {
	t.Helper()
	p, err := canonicalPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
