//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// openFiles is what pid's descriptors refer to, by number, from /proc; nil
// if this process may not look (an init, not dumpable, and this process
// not root).
func openFiles(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrPermission) {
		t.Logf("cannot look at process %d's descriptors: %v", pid, err)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string)
	for _, e := range entries {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil {
			files[e.Name()] = l
		}
	}
	return files
}

// TestForkerHoldsNoInheritedFiles: a descriptor this process holds without
// close-on-exec (one it inherited from a shell or a supervisor, say) when
// its Runtime starts the forker is held open neither by the forker, which
// lives as long as the Runtime, nor by the inits it clones, nor does it
// reach a program they run: the write end of a pipe would otherwise keep
// its reader from ever seeing the end, and a program could use it.
func TestForkerHoldsNoInheritedFiles(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil { // no O_CLOEXEC: inherited
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	var st unix.Stat_t
	if err := unix.Fstat(p[1], &st); err != nil {
		unix.Close(p[1])
		t.Fatal(err)
	}
	pipe := fmt.Sprintf("pipe:[%d]", st.Ino)
	r := &Runtime{}
	defer r.Close()
	initPid, forkerPid := forkedWarmInit(t, r)
	unix.Close(p[1])
	for _, pid := range []int{forkerPid, initPid} {
		for fd, f := range openFiles(t, pid) {
			if f == pipe {
				t.Errorf("process %d (%s) holds this process's inherited pipe at %s", pid,
					map[bool]string{true: "the forker", false: "a forked init"}[pid == forkerPid], fd)
			}
		}
	}

	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/ls", Args: []string{"ls", "-l", "/proc/self/fd/"}, Stdout: wr})
	wr.Close()
	if err != nil {
		rd.Close()
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, _ = out.ReadFrom(rd)
	rd.Close()
	proc.Wait()
	proc.Close()
	if proc.Pid() != initPid {
		t.Fatalf("the program ran in init %d, not the forked one %d", proc.Pid(), initPid)
	}
	var fds []string
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[len(f)-2] != "->" {
			continue
		}
		fd, target := f[len(f)-3], f[len(f)-1]
		if n, err := strconv.Atoi(fd); err == nil && n > 2 && !strings.HasSuffix(target, "/fd") { // not ls's own listing
			fds = append(fds, fd+" -> "+target)
		}
	}
	if len(fds) > 0 || !strings.Contains(out.String(), " 2 -> ") {
		t.Errorf("the program has descriptors beyond its standard streams: %v\n%s", fds, out.String())
	}
}
