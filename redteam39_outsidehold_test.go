//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam39OutsideHold: a command makes a repository r in its
// writable root whose config names, by core.hooksPath, include.path and
// includeIf.*.path, a missing directory and files in a host directory
// outside every writable root. While it runs, another Exec on the root
// plans its sandbox: agentbox must not create, hold or change anything
// there (placeholders are only for names inside writable roots). Held
// (red-team round 39): new in that it covers the planning of a concurrent
// Exec, which the sweep after the first command cannot undo.
//
// Control: the second Exec plans and runs.
func TestRedteam39OutsideHold(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	w := hostDir(t)
	if err := os.Chmod(w, 0o777); err != nil {
		t.Fatal(err)
	}
	outside := hostDir(t)
	done := make(chan error, 1)
	go func() {
		_, err := m.Exec(context.Background(),
			"mkdir -p r/.git/objects r/.git/refs && echo ref: refs/heads/main > r/.git/HEAD && "+
				"printf \"[core]\\n\\thooksPath = "+outside+"/hooks\\n[include]\\n\\tpath = "+outside+"/inc.cfg\\n[includeIf \\\"gitdir:/\\\"]\\n\\tpath = "+outside+"/sub/inc2.cfg\\n\" > r/.git/config && "+
				"echo planted > ready && sleep 5",
			agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(30*time.Second))
		done <- err
	}()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(w, "ready")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var seen []string
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if es, _ := os.ReadDir(outside); len(es) > 0 {
				for _, e := range es {
					seen = append(seen, e.Name())
				}
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	res, err := m.Exec(context.Background(), "echo ran",
		agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithTimeout(30*time.Second))
	close(stop)
	<-watched
	if err != nil || !strings.Contains(res.Stdout, "ran") {
		t.Fatalf("control: %v %+v", err, res)
	}
	if len(seen) > 0 {
		t.Errorf("agentbox created %v in %s, outside every writable root", seen, outside)
	}
	<-done
	if es, _ := os.ReadDir(outside); len(es) > 0 {
		t.Errorf("%s holds %d entries after the runs", outside, len(es))
	}
}
