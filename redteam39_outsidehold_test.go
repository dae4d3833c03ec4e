//go:build linux

package agentbox_test

import (
	"context"
	"os"
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
	w := rt39Root(t)
	outside := hostDir(t)
	done := rt39Plant(t, m, w, "printf \"[core]\\n\\thooksPath = "+outside+"/hooks\\n[include]\\n\\tpath = "+outside+"/inc.cfg\\n[includeIf \\\"gitdir:/\\\"]\\n\\tpath = "+outside+"/sub/inc2.cfg\\n\" > r/.git/config", 5*time.Second)
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
