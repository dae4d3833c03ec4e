package agentbox

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAwaitCopies: once the program has exited by itself, Wait waits for
// its output's copies as long as they take, unless the timeout or ctx end
// first: then the copies get copyDrain and Wait reports why it stopped.
func TestAwaitCopies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stuck    bool   // a copy that never ends
		fire     string // "", "timer" or "ctx": what ends while the copy waits
		already  ending // how the program ended (killed for its time)
		timedOut bool
		ctxErr   error
		atLeast  time.Duration
	}{
		{name: "copies done, nothing fires"},
		{name: "copies done, timer fired after", fire: "timer"},
		{name: "stuck copy, timer", stuck: true, fire: "timer", timedOut: true, atLeast: copyDrain},
		{name: "stuck copy, ctx", stuck: true, fire: "ctx", ctxErr: context.Canceled, atLeast: copyDrain},
		{name: "stuck copy, already killed", stuck: true, already: ending{timedOut: true}, timedOut: true, atLeast: copyDrain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := &Process{ctx: ctx}
			release := make(chan struct{})
			defer close(release)
			if tc.stuck {
				p.copies.Add(1)
				go func() { <-release; p.copies.Done() }()
			}
			expired := make(chan time.Time, 1)
			switch tc.fire {
			case "timer":
				time.AfterFunc(100*time.Millisecond, func() { expired <- time.Now() })
			case "ctx":
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			e := tc.already
			start := time.Now()
			p.awaitCopies(expired, &e)
			took := time.Since(start)
			if e.timedOut != tc.timedOut || !errors.Is(e.ctxErr, tc.ctxErr) || (tc.ctxErr == nil) != (e.ctxErr == nil) {
				t.Errorf("ending %+v, want timedOut %v ctxErr %v", e, tc.timedOut, tc.ctxErr)
			}
			if took < tc.atLeast || took > tc.atLeast+time.Second {
				t.Errorf("took %v, want %v to %v", took, tc.atLeast, tc.atLeast+time.Second)
			}
		})
	}
}
