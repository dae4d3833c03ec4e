//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedteam13MaxDurationExact: a program under max_duration: 2s prints
// its own start time and then a tick every 20 ms, forever, from a child
// that ignores SIGTERM and SIGHUP. The last tick it manages must come no
// later than the limit plus a small slack after its start (a limit that
// counts from later than the program's start, or a kill that spares a
// child, lets it run on), and not much earlier (control: it really ran for
// about the limit). The run exits 137.
func TestRedteam13MaxDurationExact(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "agent.yaml")
	src := "name: dur\npermissions:\n  network: {deny: [\"*\"]}\nlimits:\n  max_duration: 2s\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `echo START $(date +%s%N); (trap '' TERM HUP INT; while :; do echo TICK $(date +%s%N); sleep 0.02; done) & wait`
	t0 := time.Now()
	code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c", script)
	wall := time.Since(t0)
	var start, last int64
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "START":
			start = n
		case "TICK":
			last = n
		}
	}
	if start == 0 || last == 0 {
		t.Fatalf("control: no start or tick: exit %d, stderr %q", code, errOut)
	}
	ran := time.Duration(last - start)
	t.Logf("exit %d, the program ran %v by its own clock, the CLI %v; stderr %q", code, ran, wall, errOut)
	if ran > 2*time.Second+300*time.Millisecond {
		t.Errorf("ESCAPE: under max_duration 2s the program ticked %v after it started", ran)
	}
	if ran < 1700*time.Millisecond {
		t.Errorf("control: the program was stopped after only %v of its 2s", ran)
	}
	if code != 137 {
		t.Errorf("exit %d, want 137", code)
	}
	// Nothing of the tree may go on ticking after the run returned.
	time.Sleep(200 * time.Millisecond)
}
