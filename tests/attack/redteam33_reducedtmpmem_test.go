//go:build linux

package attack_test

import (
	"strconv"
	"strings"
	"testing"
)

// reducedMemEnv, when set, is the MaxMemoryBytes of runReduced's run.
const reducedMemEnv = "AGENTBOX_ATTACK_REDUCED_MEM"

// TestRedteam33ReducedTierTmpfsTmpdirMemory fills the reduced tier's private
// TMPDIR past the memory limit where the host's temporary directory is a
// tmpfs (the default /tmp of Fedora, Arch and Debian 13; stood for here by
// TMPDIR pointing agentbox into /dev/shm).
//
// The reduced tier makes its private temporary directory with
// os.MkdirTemp("", ...) in the host's temporary directory, and grants it
// writable. Where that is a tmpfs, every byte the program writes there is
// memory that neither RLIMIT_DATA (per process, mapped memory only) nor
// anything else of the tier counts: the full tier puts /tmp in one tmpfs the
// size of the memory limit, `run` refuses a writable root on a tmpfs with a
// declared limit (MemoryRootError), but this directory is agentbox's own
// choice, not a writable root, and ExecResult.Degraded does not mention it.
// Here a program under a 64 MiB limit leaves 256 MiB in the host's memory
// (up to the tmpfs's size, half the RAM by default; the file lives until
// the run ends). The control: a 256 MiB allocation in the same run fails
// (the limit is in force).
//
// Severity: medium (memory limit bypass on common default hosts, DoS of
// the host, silently). A fix would need to make the private directory
// somewhere on disk when the temporary directory is memory (or bound it:
// the tier cannot mount a tmpfs of its own), or say so in Degraded and
// refuse with a declared limit, as `run` does for writable roots.
//
// Fixed: under a memory limit the reduced tier makes its private TMPDIR on
// the first disk-backed place of the host's temporary directory, /var/tmp
// and the user's cache directory (makeReducedTmp); where all are memory,
// its Degraded entry says the TMPDIR is on a tmpfs (and the strict fallback
// policy never runs the reduced tier).
func TestRedteam33ReducedTierTmpfsTmpdirMemory(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	t.Parallel()
	const limitMiB, fillMiB = 64, 256
	shm := newDirIn(t, "/dev/shm", 0o700)
	// The sleep first: the init sets RLIMIT_DATA on the program from the
	// outside once it runs, and a child forked before that has none.
	script := `set -u
sleep 1
echo "fs $(stat -f -c %T "$TMPDIR")"
if python3 -c "b = bytearray(` + strconv.Itoa(fillMiB) + ` << 20)" 2>/dev/null; then echo "alloc ok"; else echo "alloc refused"; fi
head -c ` + strconv.Itoa(fillMiB) + `M /dev/zero >"$TMPDIR/fill" || echo "fill failed"
echo "filled $(wc -c <"$TMPDIR/fill")"
`
	refused, res := runBinInChild(t, "no-capabilities", false, newDir(t, 0o755), "/bin/sh", []string{"-c", script},
		"TMPDIR="+shm, reducedMemEnv+"="+strconv.Itoa(limitMiB<<20))
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	t.Logf("layers %q degraded %q\nstdout:\n%s\nstderr:\n%s", res.Layers, res.Degraded, res.Stdout, res.Stderr)
	out := string(res.Stdout)
	if !strings.Contains(out, "alloc refused") {
		t.Fatalf("control: a %d MiB allocation was not refused under a %d MiB limit", fillMiB, limitMiB)
	}
	if !strings.Contains(out, "fs tmpfs") && !strings.Contains(out, "fs ramfs") {
		// The fix: agentbox put the private TMPDIR on a disk instead.
		t.Logf("the private TMPDIR is off the tmpfs the test pointed agentbox to")
		return
	}
	said := strings.Contains(strings.Join(res.Degraded, " "), "TMPDIR is on a tmpfs")
	if strings.Contains(out, "filled "+strconv.Itoa(fillMiB<<20)) && !said {
		t.Errorf("ESCAPE: under a %d MiB memory limit the program kept %d MiB of memory in its private TMPDIR on a tmpfs; Degraded says nothing of it: %q",
			limitMiB, fillMiB, res.Degraded)
	}
}
