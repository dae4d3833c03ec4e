//go:build linux

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNoCgroupLeftBehind: a CLI process removes its sandboxes' cgroups
// before it exits. (It removed them in the background, and exited first:
// one cgroup per command piled up in every hierarchy.)
func TestNoCgroupLeftBehind(t *testing.T) {
	runEnv(t)
	sandboxCgroups := func(pid string) map[string]bool {
		out := make(map[string]bool)
		for depth := 0; depth < 6; depth++ {
			m, _ := filepath.Glob("/sys/fs/cgroup/" + strings.Repeat("*/", depth) + "agentbox/sandbox-" + pid + "-*")
			for _, d := range m {
				out[d] = true
			}
		}
		return out
	}
	for _, args := range [][]string{
		{"exec", "--profile", "ci", "--json", "--", "true"},
		{"run", "--manifest", writeManifest(t, "name: cg\n"), "--", "/bin/true"},
	} {
		before := sandboxCgroups("*") // another process with the same pid may have left some
		p := startCLI(t, args...)
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, p.stderr.String())
		}
		if args[0] == "exec" && !strings.Contains(p.stdout.String(), `"cgroup(`) {
			t.Skip("no cgroup for sandboxes here (an unprivileged user without a delegated cgroup v2 subtree)")
		}
		var left []string
		for d := range sandboxCgroups(strconv.Itoa(p.cmd.Process.Pid)) {
			if !before[d] {
				left = append(left, d)
			}
		}
		if len(left) > 0 {
			t.Errorf("%v left cgroups behind: %q", args, left)
		}
	}
}
