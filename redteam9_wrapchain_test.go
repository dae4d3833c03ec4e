//go:build linux

package agentbox_test

import (
	"fmt"
	"testing"
	"time"
)

// TestRedteam9ReducedWrapDeepChain: in the reduced tier a wrapped
// command's end (ctx, WithTimeout, cleanup, Manager.Close) is msgKill: the
// init kills the program's process group, then reap's killOrphans kills
// the init's children, at most 100 rounds. A child outside the group
// (setsid) is adopted by the init (subreaper) only once its parent is
// dead, so each round ends one generation of a chain of processes: a
// chain deeper than the rounds outlives the command, still running on the
// host after cmd.Wait and cleanup return. The attack: a setsid'd chain of
// 130 processes must be gone after the timeout. The control: a chain of 40
// is.
//
// Fixed: killOrphans goes on until no child is left (at most
// orphansWait), not for 100 rounds.
func TestRedteam9ReducedWrapDeepChain(t *testing.T) {
	for _, c := range []struct {
		depth   int
		control bool
	}{{40, true}, {130, false}} {
		t.Run(fmt.Sprintf("depth=%d", c.depth), func(t *testing.T) {
			script := `cat >"$PWD/c.sh" <<'X'
echo $$ >>"$PIDS"
if [ "$1" -gt 0 ]; then sh "$0" $(($1-1)) & fi
exec sleep 12
X
setsid sh ./c.sh ` + fmt.Sprint(c.depth) + ` </dev/null >/dev/null 2>&1 &
while [ "$(wc -l <"$PIDS")" -le ` + fmt.Sprint(c.depth) + ` ]; do sleep 0.05; done
echo started
sleep 12`
			o := rt9RunReduced(t, rt9Scenario{API: "wrap", Script: script, Timeout: 3 * time.Second})
			if o.Err != "" || o.Stdout != "started\n" {
				t.Fatalf("the chain did not start: %+v", o)
			}
			if o.Code != 137 || o.Millis > 6000 {
				t.Fatalf("control: the wrapped command was not ended by its timeout: %+v", o)
			}
			if len(o.Alive) > 0 {
				t.Errorf("ESCAPE: %d processes of a chain of %d outlived the wrapped command's timeout and cleanup: pids %v", len(o.Alive), c.depth+1, o.Alive)
			}
		})
	}
}
