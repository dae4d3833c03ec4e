//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam27UpdateConfigDuringExec: UpdateConfig flips a deny-read of a
// secret on and off while two goroutines run ExecArgs in a loop. A call
// that begins after an UpdateConfig that denies the secret has returned
// (and before the next one begins) must not read it. Control: calls made
// while it is allowed read it. Passing: kept because it covers
// UpdateConfig racing running calls with a deny-read, which no earlier test did.
func TestRedteam27UpdateConfigDuringExec(t *testing.T) {
	dir := hostDir(t)
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET27"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := agentbox.CIConfig()
	base.Classifier = rt9Sandboxed{}
	base.Filesystem.AllowRead = append(base.Filesystem.AllowRead, dir)
	deny := base
	deny.Filesystem.DenyRead = append(append([]string(nil), base.Filesystem.DenyRead...), secret)
	m, err := agentbox.NewManager(base)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// state: even = allowed, odd = denied; bumped around each UpdateConfig
	// (a call that sees the same odd value before and after runs denied).
	var state atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		// Each state is held long enough for whole calls to fall inside
		// it, even under the race detector on a loaded machine.
		for i := 0; i < 16; i++ {
			time.Sleep(time.Duration(150+i%3*60) * time.Millisecond)
			state.Add(1) // in transition
			c := base
			if i%2 == 0 {
				c = deny
			}
			if err := m.UpdateConfig(c); err != nil {
				t.Error(err)
				return
			}
			state.Add(1)
		}
	}()
	var allowedRead, deniedRuns, leaks atomic.Int64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s0 := state.Load()
				var out string
				res, err := m.ExecArgs(context.Background(), "/bin/cat", []string{secret}, agentbox.WithWorkingDir(dir))
				if err == nil {
					out = res.Stdout
				}
				s1 := state.Load()
				read := strings.Contains(out, "TOPSECRET27")
				if s0 == s1 && s0%4 == 2 {
					deniedRuns.Add(1)
				}
				if s0 == s1 && s0%4 == 2 && read {
					leaks.Add(1)
					t.Errorf("a call made while the deny-read was in force read the secret")
				}
				if s0 == s1 && s0%4 == 0 && read {
					allowedRead.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	t.Logf("allowed reads %d, calls wholly denied %d, leaks %d, flips %d", allowedRead.Load(), deniedRuns.Load(), leaks.Load(), state.Load()/2)
	if allowedRead.Load() == 0 {
		t.Errorf("control: no call read the secret while it was allowed")
	}
	if deniedRuns.Load() == 0 {
		t.Errorf("no call ran wholly while the deny-read was in force: the attack was not tried")
	}
}
