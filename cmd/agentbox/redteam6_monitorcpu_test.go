//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/supervise"
)

// rt6IdleTree starts PROCS sleeping processes and one that holds HOLD MiB
// (above half the limit, the monitor samples four times as often), prints
// "ready" and waits. Nothing in it uses CPU.
const rt6IdleTree = `
i=0; while [ $i -lt "$1" ]; do sleep 30 & i=$((i+1)); done
/usr/bin/python3 -c '
import sys, time
b = bytearray(int(sys.argv[1]) << 20)
for o in range(0, len(b), 4096): b[o] = 1
print("ready", flush=True)
time.sleep(30)' "$2" &
wait
`

// rt6CPUTicks is the user plus system CPU time of pid in clock ticks.
func rt6CPUTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.Atoi(f[11]) // field 14
	s, _ := strconv.Atoi(f[12]) // field 15
	return u + s
}

// TestRedteam6MonitorBurnsSupervisorCPU: without a cgroup, the resident-
// memory monitor scans all of /proc and reads the status of every process
// of the sandbox each 100 ms (each 25 ms above half the limit), in the
// `agentbox run` process, which no limit of the sandbox bounds. An idle
// sandbox of 900 sleeping processes (within the default 1,024) holding
// just over half its memory limit makes the supervisor use well over a
// third of a CPU (two thirds on the 2-core CI machine) for as long as it
// runs; two such agents take a core. The same tree under a cgroup (root)
// costs its supervisor under 1%. The control: a tree of 20 processes. The
// bound asked for: the supervisor of an idle agent uses under a quarter of a CPU (the
// control, a small tree above half its limit, costs about 10% here).
//
// Fixed: the monitor reads the sandbox's own /proc and samples no more often than four times a sample's cost.
func TestRedteam6MonitorBurnsSupervisorCPU(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "idle.yaml", "name: rt6-idle\nlimits: {max_memory_mb: 256, max_duration: 40s}\n")
	script := m.file(t, "idle.sh", rt6IdleTree)
	tick := 100 // USER_HZ on Linux
	for _, tc := range []struct {
		name        string
		procs, hold string // hold: MiB, so that the tree uses over half its limit
	}{
		{"control_20_processes", "20", "140"},
		{"attack_900_processes", "900", "60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := m.command(context.Background(), "run", "--manifest", manifest, "--", "/bin/sh", script, tc.procs, tc.hold)
			cmd.Dir = m.dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			defer func() {
				// agentbox and its tree go with their process group.
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}()
			// The run's own pid, from its registry record.
			var rec supervise.Record
			deadline := time.Now().Add(10 * time.Second)
			for {
				files, _ := filepath.Glob(filepath.Join(m.state, "agents", "*.json"))
				if len(files) == 1 {
					if b, err := os.ReadFile(files[0]); err == nil && json.Unmarshal(b, &rec) == nil && rec.Pid > 0 {
						break
					}
				}
				select {
				case <-done:
					t.Fatalf("agentbox run ended: %s %s", stdout.String(), stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("no registry record; stderr %q", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			files, _ := filepath.Glob(filepath.Join(m.state, "agents", "*.json"))
			defer func() { _ = os.Remove(files[0]) }()
			// Let the tree settle, then measure the supervisor alone.
			for !strings.Contains(stdout.String(), "ready") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			const window = 3 * time.Second
			before := rt6CPUTicks(t, rec.Pid)
			time.Sleep(window)
			used := rt6CPUTicks(t, rec.Pid) - before
			share := float64(used) / float64(tick) / window.Seconds()
			t.Logf("%s: agentbox run (pid %d, memory via %s) used %.0f%% of a CPU over %v", tc.name, rec.Pid, rec.Memory, share*100, window)
			if rec.Memory != supervise.MemoryMonitor {
				t.Fatalf("the run did not use the monitor: %q", rec.Memory)
			}
			if share > 0.25 {
				t.Errorf("DOS: the supervisor of an idle agent of %s processes uses %.0f%% of a CPU (want under 25%%)", tc.procs, share*100)
			}
		})
	}
}
