//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam27PlantedRepoSparseConfigHostMemory: the host-side sweep
// after a command reads the config of every repository the command
// planted (riskyGitDir -> readNoFollow) with io.ReadAll, unbounded. A
// sparse file costs the command no disk space and no time (ftruncate),
// and no RLIMIT_FSIZE caps it: a sub/.git/config of 128 MiB makes the
// agentbox process on the host allocate over 1 GiB (512 MiB: 5.3 GiB),
// and the violation's Detail carries the whole NUL-filled "key" (the
// config's first line) to the caller, the audit log and the notices; one
// of 64 GiB, as cheap for the command, makes it try to allocate that
// much (out of memory: the host caller — an agent harness running many
// sandboxes — dies, or the kernel's OOM killer picks another host
// process). The README's "no quota on disk space" is about the disk, not
// about agentbox reading what a command wrote into its own memory.
// Control: the run writes the project; the repository is reported.
//
// Severity: medium (a sandboxed command exhausts the host process's
// memory; no escape). Root and unprivileged callers.
//
// Fix: read host-side files of writable roots (readNoFollow, os.ReadFile
// in gitDirOf, commonDirOf, readGitConfig) through an fstat'd regular-file
// check and an io.LimitReader (a config of more than, say, 1 MiB is
// risky without being read).
//
// Fixed: readBounded (behind readNoFollow, readFollow, scanAccess.read)
// fstats and refuses a file over 1 MiB unread, and reads at most that
// much; the repository is risky ("larger than ... not read") and
// quarantined. A config key put in a Detail is clipped (clipDetail).
func TestRedteam27PlantedRepoSparseConfigHostMemory(t *testing.T) {
	w := newRepo(t)
	const size = 128 << 20
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		control("mkdir_sub", "mkdir:"+w+"/sub", ""),
		control("mkdir_git", "mkdir:"+w+"/sub/.git", ""),
		control("head", "write:"+w+"/sub/.git/HEAD", ""),
		control("objects", "mkdir:"+w+"/sub/.git/objects", ""),
		control("refs", "mkdir:"+w+"/sub/.git/refs", ""),
		control("sparse_config", "sparse:"+w+"/sub/.git/config|"+strconv.Itoa(size), ""),
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	runtime.ReadMemStats(&after)
	if b, _ := os.ReadFile(filepath.Join(w, "main.txt")); len(b) == 0 {
		t.Errorf("control: the run did not write the project")
	}
	for _, v := range res.Violations {
		if len(v.Detail) > 1<<20 {
			t.Errorf("HUGE REPORT: a violation's Detail is %d MiB long (the planted config's content)", len(v.Detail)>>20)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("HOST MEMORY: the host allocated %d MiB while sweeping one run: it read the %d MiB sparse .git/config the command planted whole (unbounded io.ReadAll)", grew>>20, size>>20)
	}
}
