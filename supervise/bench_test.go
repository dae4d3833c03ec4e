//go:build linux

package supervise

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/policy"
)

// treeScript starts a small tree: the shell and three children.
const treeScript = "sleep 1000 & sleep 1000 & sleep 1000 & echo ready; wait"

// BenchmarkKillToGone measures the kill switch: from Registry.Kill (lookup,
// kill marker, pidfd SIGKILL of the sandbox's init) until every process of
// the agent's tree has exited, as seen through a pidfd of each process
// opened before the kill. It reports the median and the 99th percentile.
// "settled" kills a tree whose processes all sleep, as a running agent's
// mostly do; "starting" kills it as soon as its processes exist, while the
// sleeps are still being executed. Run with -benchtime=200x for a
// meaningful p99.
func BenchmarkKillToGone(b *testing.B) {
	for _, settle := range []bool{true, false} {
		name := "settled"
		if !settle {
			name = "starting"
		}
		b.Run(name, func(b *testing.B) { benchKill(b, settle, benchManifest(b, "")) })
	}
	b.Run("settled-workspace", func(b *testing.B) { benchKill(b, true, benchManifest(b, workspace(b))) })
}

// workspace is a writable directory holding what agentbox keeps read-only
// inside one (a repository's .git, a .bashrc), so that the sandbox's init
// watches those mounts (mountWatch), as it does for most real agents.
func workspace(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for _, d := range []string{".git/hooks", ".git/refs", ".git/objects"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".git/HEAD", ".git/config", ".bashrc"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchKill(b *testing.B, settle bool, m *policy.Manifest) {
	reg, err := OpenRegistry(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	var lookup []time.Duration // lookup and kill marker, before the SIGKILL
	b.StopTimer()
	for range b.N {
		ag, err := Start(context.Background(), m, Options{Program: "/bin/sh", Args: []string{"-c", treeScript}, Registry: reg, Approved: true})
		if err != nil {
			b.Fatal(err)
		}
		fds := pinTree(b, ag.Pid(), 5, settle) // init, sh, three sleeps
		b.StartTimer()
		t0 := time.Now()
		res, err := reg.Kill(ag.ID(), "benchmark")
		if err != nil {
			b.Fatal(err)
		}
		waitAll(b, fds)
		d := time.Since(t0)
		b.StopTimer()
		samples = append(samples, d)
		lookup = append(lookup, d-res.Elapsed)
		closeAll(fds)
		if res, err := ag.Wait(); err != nil || res.ExitCode != 137 {
			b.Fatalf("wait: %+v %v", res, err)
		}
	}
	reportPercentiles(b, samples)
	slices.Sort(lookup)
	b.ReportMetric(float64(lookup[len(lookup)/2].Microseconds())/1000, "lookup-p50-ms")
}

// BenchmarkKillToGoneBaseline is the same tree outside any sandbox, killed
// with SIGKILL to its process group: what the kill switch is compared to.
func BenchmarkKillToGoneBaseline(b *testing.B) {
	samples := make([]time.Duration, 0, b.N)
	b.StopTimer()
	for range b.N {
		c := exec.Command("/bin/sh", "-c", treeScript)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := c.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil {
			b.Fatal(err)
		}
		fds := pinGroup(b, c.Process.Pid, 4) // sh, three sleeps, all asleep
		b.StartTimer()
		t0 := time.Now()
		if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil {
			b.Fatal(err)
		}
		waitAll(b, fds)
		d := time.Since(t0)
		b.StopTimer()
		samples = append(samples, d)
		closeAll(fds)
		_ = c.Wait()
	}
	reportPercentiles(b, samples)
}

// benchManifest is a minimal manifest, with write as its one writable
// directory when not empty.
func benchManifest(b *testing.B, write string) *policy.Manifest {
	b.Helper()
	p := filepath.Join(b.TempDir(), "bench.yaml")
	text := "name: bench\naudit: {log_level: minimal}\n"
	if write != "" {
		text += "permissions: {filesystem: {write: [" + strconv.Quote(write) + "]}}\n"
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	m, err := policy.LoadManifest(p)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// pinTree opens a pidfd for every process of the sandbox once it has n (and,
// if settle, once all of them sleep).
func pinTree(b *testing.B, initPid, n int, settle bool) []int {
	b.Helper()
	ns, err := pidNamespace(initPid)
	if err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, _ := namespaceProcs(ns, nil)
		if len(pids) >= n && (!settle || asleep(pids)) {
			return pidfds(b, pids)
		}
		if time.Now().After(deadline) {
			b.Fatalf("sandbox has %d processes, want %d", len(pids), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// pinGroup opens a pidfd for every process of process group pgid.
func pinGroup(b *testing.B, pgid, n int) []int {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var pids []int
		all, _ := namespaceProcs(mustNS(b), nil)
		for _, p := range all {
			if g, err := syscall.Getpgid(p); err == nil && g == pgid {
				pids = append(pids, p)
			}
		}
		if len(pids) >= n && asleep(pids) {
			return pidfds(b, pids)
		}
		if time.Now().After(deadline) {
			b.Fatalf("group has %d processes, want %d", len(pids), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func mustNS(b *testing.B) string {
	ns, err := pidNamespace(unix.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	return ns
}

func pidfds(b *testing.B, pids []int) []int {
	var fds []int
	for _, p := range pids {
		fd, err := unix.PidfdOpen(p, 0)
		if err != nil {
			b.Fatalf("pidfd_open %d: %v", p, err)
		}
		fds = append(fds, fd)
	}
	return fds
}

// waitAll returns once every pinned process has exited.
func waitAll(b *testing.B, fds []int) {
	for _, fd := range fds {
		if err := pidfd(fd).wait(5 * time.Second); err != nil {
			b.Fatal(err)
		}
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	pct := func(p float64) time.Duration { return samples[min(len(samples)-1, int(p*float64(len(samples))))] }
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(samples[len(samples)-1].Microseconds())/1000, "max-ms")
}

// asleep reports whether every process of pids is in state S.
func asleep(pids []int) bool {
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			return false
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'S' {
			return false
		}
	}
	return true
}
