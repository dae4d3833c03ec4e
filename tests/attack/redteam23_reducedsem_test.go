//go:build linux

package attack_test

import "testing"

// TestRedteam23ReducedTierPosixSemaphores runs a Python process pool
// (concurrent.futures.ProcessPoolExecutor, multiprocessing.Pool, Queue and
// Lock alike) in the reduced tier. Each needs a POSIX named semaphore,
// which glibc's sem_open creates as /dev/shm/sem.NAME (shm_open likewise:
// the directory is fixed, no TMPDIR is consulted); the tier withholds the
// host's /dev/shm, and had left it read-only before, so the pool fails at
// construction ("PermissionError: [Errno 13] Permission denied" from
// SemLock). The control: the same program in the full tier, whose
// /dev/shm is private and writable, prints its result. The README says
// the host's /dev/shm is unwritable in the tier and that TMPDIR stands in
// for it, but not that POSIX shared memory and named semaphores (and so
// Python's multiprocessing) do not work there; nor does Degraded.
//
// Severity: low (no escape; a common legitimate workload fails).
//
// Fix: Landlock cannot grant creating one's own files in /dev/shm without
// granting the host's other segments; say it in the README's reduced-tier
// limits and in Degraded (or refuse the reduced tier under the strict
// policy for it), so callers know to expect it.
func TestRedteam23ReducedTierPosixSemaphores(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	ps := []probe{
		control("process_pool", `exec:/usr/bin/python3|-c|import concurrent.futures as f; print("pool", list(f.ProcessPoolExecutor(2).map(abs, [-1, -2])))`, "pool [1, 2]"),
		control("mp_lock", `exec:/usr/bin/python3|-c|import multiprocessing as m; l = m.Lock(); l.acquire(); print("locked")`, "locked"),
	}
	t.Run("full", func(t *testing.T) {
		o, res := runProbes(t, ciMgr, ps)
		t.Logf("attacker output:\n%s", res.Stdout)
		checkProbes(t, o, ps)
	})
	t.Run("reduced", func(t *testing.T) {
		refused, res := runInChild(t, "no-capabilities", false, newDir(t, 0o755), ps)
		if res == nil {
			t.Fatalf("agentbox refused: %s", refused)
		}
		o := parseOutput(res.Stdout)
		if !o.started || !o.done {
			t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		t.Logf("degraded %q\nattacker output:\n%s", res.Degraded, res.Stdout)
		checkProbes(t, o, ps)
	})
}
