//go:build linux

package supervise

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/policy"
)

// helperEnv makes the test binary act as another process of the test:
// "kill KEY" kills an agent through the registry in $SUPERVISE_TEST_STATE.
const helperEnv = "SUPERVISE_TEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h))
	}
	os.Exit(m.Run())
}

func runHelper(h string) int {
	reg, err := OpenRegistry(os.Getenv("SUPERVISE_TEST_STATE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	verb, arg, _ := strings.Cut(h, " ")
	switch verb {
	case "kill":
		res, err := reg.Kill(arg, "test helper")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("killed %s in %v\n", res.Record.ID, res.Elapsed)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper", h)
	return 2
}

// fixture is one test's state directory and registry.
type fixture struct {
	t   *testing.T
	reg *Registry
	dir string // manifests go here (host side only)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	reg, err := OpenRegistry(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, reg: reg, dir: dir}
}

// manifest writes and loads a manifest.
func (f *fixture) manifest(src string) *policy.Manifest {
	f.t.Helper()
	p := filepath.Join(f.dir, fmt.Sprintf("m%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		f.t.Fatal(err)
	}
	m, err := policy.LoadManifest(p)
	if err != nil {
		f.t.Fatalf("manifest: %v\n%s", err, src)
	}
	return m
}

// notices collects the notices of a run.
type notices struct {
	mu   sync.Mutex
	list []Notice
}

func (n *notices) add(x Notice) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
}

func (n *notices) of(kind NoticeKind) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, x := range n.list {
		if x.Kind == kind {
			out = append(out, x.Text)
		}
	}
	return out
}

// run is one started agent with its captured output.
type run struct {
	ag      *Agent
	stdout  *syncbuf.Buffer
	notices *notices
}

// start starts program under m with captured output.
func (f *fixture) start(m *policy.Manifest, program string, args ...string) *run {
	f.t.Helper()
	r := &run{stdout: &syncbuf.Buffer{}, notices: &notices{}}
	ag, err := Start(context.Background(), m, Options{
		Program: program, Args: args,
		Stdout: r.stdout, Stderr: r.stdout,
		Registry: f.reg, Notify: r.notices.add, Grace: 300 * time.Millisecond,
		Approved: true, // these tests are not about the classifier
	})
	if err != nil {
		f.t.Fatalf("Start %s: %v", program, err)
	}
	r.ag = ag
	f.t.Cleanup(func() {
		ag.Kill("test cleanup")
		_, _ = ag.Wait()
	})
	return r
}

// wait waits for the run with a deadline.
func (r *run) wait(t *testing.T, within time.Duration) *Result {
	t.Helper()
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := r.ag.Wait()
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatalf("Wait: %v (output %q)", o.err, r.stdout.String())
		}
		return o.res
	case <-time.After(within):
		r.ag.Kill("test timeout")
		t.Fatalf("agent still running after %v; output %q", within, r.stdout.String())
		return nil
	}
}

// events reads an audit log's events of one agent and checks the chain.
func (f *fixture) events(path, agentID string) []audit.Event {
	f.t.Helper()
	rep, err := audit.Verify(path, audit.VerifyOptions{StateDir: f.reg.StateDir})
	if err != nil {
		f.t.Fatalf("verify %s: %v", path, err)
	}
	if !rep.OK {
		f.t.Fatalf("verify %s: %+v", path, rep)
	}
	evs, err := audit.Query(path, audit.Filter{Agent: agentID})
	if err != nil {
		f.t.Fatal(err)
	}
	return evs
}

func eventTypes(evs []audit.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.EventType
	}
	return out
}

func findEvent(evs []audit.Event, typ string) *audit.Event {
	for i := range evs {
		if evs[i].EventType == typ {
			return &evs[i]
		}
	}
	return nil
}

// treeGone waits up to within until none of pids (the tree's processes,
// as waitProcs found them) runs any more, and returns those still running.
// It checks the processes themselves, by pid and start time, not the
// namespace: once the tree is gone, the kernel may hand the namespace's
// number to a new sandbox of a test running beside this one.
func treeGone(pids []int, within time.Duration) ([]int, bool) {
	starts := make(map[int]uint64, len(pids))
	for _, p := range pids {
		if st, err := procStartTime(p); err == nil {
			starts[p] = st
		}
	}
	deadline := time.Now().Add(within)
	for {
		var left []int
		for p, st := range starts {
			if alive(p, st) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return nil, true
		}
		if time.Now().After(deadline) {
			return left, false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitProcs waits until the sandbox of initPid holds at least n processes
// and returns its namespace.
func waitProcs(t *testing.T, initPid, n int) (string, []int) {
	t.Helper()
	ns, err := pidNamespace(initPid)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, _ := namespaceProcs(ns, nil)
		if len(pids) >= n {
			return ns, pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("sandbox has %d processes, want %d", len(pids), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// helper starts the test binary as another process of the test.
func helper(t *testing.T, reg *Registry, verb string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+verb, "SUPERVISE_TEST_STATE="+reg.StateDir)
	return c
}

// scriptFile writes a script where the agent can read it: under /var/tmp,
// since the sandbox's /tmp is private.
func scriptFile(t *testing.T, name, content string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "supervise-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
