//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// task identifies a host process across pid reuse: pid plus start time.
type task struct {
	pid   int
	start string
	comm  string
}

func (k task) String() string { return fmt.Sprintf("%d(%s)", k.pid, k.comm) }

// procStat reads pid's parent, state, start time and name from
// /proc/PID/stat, which every user may read.
func procStat(pid int) (ppid int, state, start, comm string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", "", "", false
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return 0, "", "", "", false
	}
	comm = s[open+1 : close]
	f := strings.Fields(s[close+1:])
	// After the name: state(0) ppid(1) ... starttime is field 22 of the
	// whole line, index 19 here.
	if len(f) < 20 {
		return 0, "", "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0], f[19], comm, true
}

// descendants returns root and every process below it on the host.
func descendants(root int) []task {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, _, _, ok := procStat(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []task
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if _, _, start, comm, ok := procStat(pid); ok {
			out = append(out, task{pid: pid, start: start, comm: comm})
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// alive reports whether k still exists and is not a zombie (a zombie has
// released everything but its pid; the machine's own init reaps it).
func alive(k task) bool {
	_, state, start, _, ok := procStat(k.pid)
	return ok && start == k.start && state != "Z"
}

// survivors returns the tasks that are still alive.
func survivors(ts []task) []task {
	var out []task
	for _, k := range ts {
		if alive(k) {
			out = append(out, k)
		}
	}
	return out
}

// waitGone polls until every task is gone or the deadline passes, and
// returns the survivors.
func waitGone(ts []task, within time.Duration) []task {
	deadline := time.Now().Add(within)
	for {
		left := survivors(ts)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// holderEnv makes the test binary act as a small agentbox host program:
// it starts a tree of sleeps in a sandbox, prints "READY", and waits to be
// killed.
const holderEnv = "AGENTBOX_ATTACK_HOLDER"

// holderScript leaves a sleep in the background, a daemonised sleep in its
// own session that ignores SIGTERM and SIGHUP, and a foreground one.
const holderScript = `sleep 300 & (setsid sh -c 'trap "" TERM HUP; sleep 300' &); echo ready; sleep 300`

func runHolder() int {
	m, err := agentbox.NewManager(ciConfig())
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	// Commands first, until the warm init comes from the Manager's forker
	// (the first ones do not: the forker starts in the background), so
	// that the forker is in the chain the SIGKILL must take down.
	for deadline := time.Now().Add(10 * time.Second); !forkerHoldsInit(); {
		if time.Now().After(deadline) {
			fmt.Println("ERROR no warm init from the forker within 10 s")
			return 1
		}
		if _, err := m.ExecArgs(context.Background(), "/bin/true", nil, agentbox.WithWorkingDir("/")); err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		// The release starts the next warm init: wait for it a little.
		for until := time.Now().Add(time.Second); time.Now().Before(until) && !forkerHoldsInit(); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", holderScript}, Stdout: w, Stderr: os.Stderr}
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"))
	w.Close()
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		fmt.Println("ERROR sandbox said", strconv.Quote(line))
		return 1
	}
	fmt.Printf("READY %d\n", p.Pid())
	_, _ = p.Wait()
	return 0
}

// forkerArg0 and initArg0 are how the forker and an init name themselves.
const (
	forkerArg0 = "agentbox-sandbox-forker"
	initArg0   = "agentbox-sandbox-init"
)

// arg0 is pid's argv[0] ("" once it is gone).
func arg0(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	a, _, _ := strings.Cut(string(b), "\x00")
	return a
}

// childPids lists pid's children, from /proc.
func childPids(pid int) []int {
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// forkerHoldsInit reports whether this process has a forker child with an
// init child: the warm init a Start takes next.
func forkerHoldsInit() bool {
	for _, f := range childPids(os.Getpid()) {
		if arg0(f) != forkerArg0 {
			continue
		}
		for _, k := range childPids(f) {
			if arg0(k) == initArg0 {
				return true
			}
		}
	}
	return false
}
