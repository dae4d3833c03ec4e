//go:build linux

package attack_test

import (
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// TestFileLeases takes file leases from the sandbox: a read lease on a
// host file it may only read (one in the home, which the sandbox's user
// owns, root's home through its idmapped mount), and a write lease on a
// file of a writable root. A lease makes every host process that opens the
// file for writing (a read lease) or at all (a write lease) wait until the
// holder lets go or the kernel breaks it, lease-break-time later (45 s by
// default), and the holder may take it again at once: the user's editor,
// shell history or a host agent stall on the sandbox's say-so, whoever
// they run as. Unlike flock and POSIX locks (a documented limit, which the
// control takes), leases are needed by no ordinary workload. The host's
// opens must go through at once.
func TestFileLeases(t *testing.T) {
	t.Parallel()
	hostFile := filepath.Join(newDirIn(t, fakeHome, 0o755), "notes.txt")
	writeFile(t, hostFile, publicContent, 0o644)
	w := newDir(t, 0o755)
	wFile := filepath.Join(w, "work.txt")
	writeFile(t, wFile, publicContent, 0o644)
	giveToSandboxUser(t, w, wFile)

	ps := []probe{
		control("read_host_file", "read:"+hostFile, publicContent),
		control("flock_host_file", "flock:"+hostFile, "flocked"),
		control("write_root_file", "write:"+wFile, ""),
		attack("read_lease_host_file", "lease:"+hostFile+"|rd"),
		attack("write_lease_root_file", "lease:"+wFile+"|wr"),
		control("hold", "sleep:8s", ""),
	}
	run := startProbes(t, ciMgr, ps, nil, agentbox.WithWritableRoots(w))
	run.waitLine(t, "RESULT write_lease_root_file")

	// While the sandbox holds whatever it got, the host opens both files.
	for _, o := range []struct {
		path  string
		flags int
	}{{hostFile, unix.O_WRONLY | unix.O_APPEND}, {wFile, unix.O_RDONLY}} {
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			fd, err := unix.Open(o.path, o.flags|unix.O_CLOEXEC, 0)
			if err == nil {
				unix.Close(fd)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("control: the host could not open %s: %v", o.path, err)
			}
		case <-time.After(3 * time.Second):
			t.Errorf("ESCAPE: a host process opening %s (flags %#x) is blocked by the sandbox's lease", o.path, o.flags)
			defer func() {
				<-done
				t.Logf("the host's open of %s went through after %v, when the sandbox let go", o.path, time.Since(start).Round(time.Millisecond))
			}()
		}
	}
	run.check(t, ps)
}
