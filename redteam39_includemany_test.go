//go:build linux

package agentbox_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam39IncludeMany: a command (default policy, no git options)
// makes a repository r in its writable root whose config, some 400 KB
// (under hostReadMax), names 20,000 distinct missing files with
// include.path. While it still runs, another Exec on the same root plans
// its sandbox: readGitConfig follows every include (the depth is bounded,
// the breadth is not), and protectConfigFiles holds each missing one, so
// agentbox creates 20,000 placeholder files in the root and binds each
// read-only: the second Exec takes tens of seconds before its command
// starts (about 40 s here, and the cost grows faster than the count: 2,000
// take 1.5 s), none of it within its timeout. A repository the user keeps
// with AllowGitConfig makes every later Exec pay it. The sweep after the
// first command renames r away, too late. Runs as root and unprivileged.
//
// Severity: low (a sandboxed command slows a later Exec by a minute or
// more, and fills the mount table of its sandbox).
//
// Found by red-team round 39; fixed: readGitConfig reads at most
// maxConfigFiles files, and an Exec whose writable roots meet a
// configuration that names more is refused (ErrConfigInvalid, naming the
// repository): what the files past the bound set could not be protected.
//
// Control: the same with a config of ten includes: the second Exec plans
// and runs at once.
func TestRedteam39IncludeMany(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	// plant makes a repository whose config names n missing includes,
	// beside the next Exec (rt39Plant).
	plant := func(w, n string) chan error {
		t.Helper()
		return rt39Plant(t, m, w, "mkdir -p r/inc && "+
			"awk -v n="+n+" \"BEGIN { print \\\"[include]\\\"; for (i = 0; i < n; i++) print \\\"path = ../inc/f\\\" i }\" > r/.git/config", 3*time.Second)
	}

	ctl := rt39Root(t)
	first := plant(ctl, "10")
	start := time.Now()
	select {
	case err := <-rt39Run(m, ctl):
		if err != nil {
			t.Fatalf("control: %v", err)
		}
		t.Logf("control: Exec beside a repository of 10 includes took %v", time.Since(start))
	case <-time.After(12 * time.Second):
		t.Fatal("control: Exec beside a repository of 10 includes did not return in 12 s")
	}
	if err := <-first; err != nil {
		t.Fatalf("control: first command: %v", err)
	}

	w := rt39Root(t)
	first = plant(w, "20000")
	start = time.Now()
	select {
	case err := <-rt39Run(m, w):
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Exec took %v (%v) to plan beside a repository whose config names 20,000 includes", d, err)
		}
		if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "includes more than") {
			t.Errorf("Exec beside a repository whose config names 20,000 includes: %v; want it refused (ErrConfigInvalid), as what they set could not be protected", err)
		}
	case <-time.After(12 * time.Second):
		t.Errorf("Exec did not return in 12 s: agentbox follows and holds 20,000 includes named by the config of a repository the command made")
	}
	select {
	case <-first:
	case <-time.After(60 * time.Second):
	}
}
