//go:build linux

package linux

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// On cgroup v1 an init cannot be cloned into the sandbox's cgroup, and
// moving a process into one (a pid written to cgroup.procs) makes the
// kernel wait for an RCU grace period with the cgroups' global lock held:
// 6–18 ms here, on the path of every command, and as long again at the end,
// when the cgroup can be removed only once the init, whose inotify instance
// (mountWatch) is destroyed after another grace period, has exited.
//
// A thread that moves itself, by writing 0 to a v1 tasks file, needs no
// such lock (a few microseconds). So the host opens the sandbox cgroup's
// tasks files, which it may write, and sends them with the spec; the init's
// thread that forks the program joins through them before it forks
// (joinByTasks), and the program, and everything it starts, begins inside.
// The init itself stays outside: its memory is agentbox's (a few MiB), as
// in the tier without cgroups, and the cgroup is empty, and removed, as soon
// as the program's tree is gone.

// tasksFiles opens the v1 tasks file of each of the cgroup's hierarchies
// for writing. The kernel checks a write against the credentials the file
// was opened with, so the init, in a user namespace, may use them.
func (cg *sandboxCgroup) tasksFiles() ([]*os.File, error) {
	if cg.version != 1 {
		return nil, fmt.Errorf("cgroup: tasks files are cgroup v1's (this is v%d)", cg.version)
	}
	return cg.openForWriting("tasks")
}

// openForWriting opens the file name in each of the cgroup's directories
// for writing (close-on-exec), all of them or none.
func (cg *sandboxCgroup) openForWriting(name string) ([]*os.File, error) {
	var files []*os.File
	for _, d := range cg.dirs {
		f, err := os.OpenFile(filepath.Join(d, name), os.O_WRONLY, 0)
		if err != nil {
			closeFiles(files)
			return nil, fmt.Errorf("cgroup: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// joinByTasks moves the calling thread, which must be locked to its
// goroutine, into the cgroups whose tasks files fds are (see tasksFiles).
// A thread the runtime starts later is never cloned from a locked one.
func joinByTasks(fds []int) error {
	for _, fd := range fds {
		if _, err := unix.Write(fd, []byte("0")); err != nil {
			return fmt.Errorf("join the sandbox's cgroup: %w", err)
		}
	}
	return nil
}
