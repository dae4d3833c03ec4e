package supervise

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// A run logs every decision of its egress proxy, and every refused
// connection is one: an agent that retries a denied host in a loop, or
// one that means to fill the disk, makes thousands a second. netLimiter
// lets decisions into the audit log one by one at a bounded rate (a token
// bucket); past it, they are counted by event type, rule and verdict, and
// each count becomes one summary event, written a second after its first
// decision and when the run ends. Nothing goes unrecorded, and the log
// grows by at most netRate entries a second, plus one summary a second for
// each kind of decision.
const (
	netRate          = 50  // decisions a second logged one by one, on average
	netBurst         = 500 // and at most this many at once
	netSummaryDelay  = time.Second
	netSampleTargets = 5 // distinct targets a summary names
)

// netSummary counts the decisions of one kind that were not logged one by
// one.
type netSummary struct {
	template    audit.Event // the first of them
	count       int
	targets     []string
	first, last time.Time
}

type netLimiter struct {
	emit    func(audit.Event) // writes a summary
	flushMu sync.Mutex        // one flush at a time: the run's last waits for the timer's

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	pending map[string]*netSummary
	order   []string // pending's keys, oldest first
	timer   *time.Timer
}

func newNetLimiter(emit func(audit.Event)) *netLimiter {
	return &netLimiter{emit: emit, tokens: netBurst, pending: map[string]*netSummary{}}
}

// admit reports whether e is logged on its own; otherwise it is counted.
func (l *netLimiter) admit(e audit.Event, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		l.tokens = min(netBurst, l.tokens+now.Sub(l.last).Seconds()*netRate)
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return true
	}
	key := fmt.Sprintf("%s\x00%s\x00%t", e.EventType, e.Rule, e.Allowed)
	s := l.pending[key]
	if s == nil {
		s = &netSummary{template: e, first: e.Timestamp}
		l.pending[key] = s
		l.order = append(l.order, key)
	}
	s.count++
	s.last = e.Timestamp
	if len(s.targets) < netSampleTargets && !slices.Contains(s.targets, e.Resource) {
		s.targets = append(s.targets, e.Resource)
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(netSummaryDelay, l.flush)
	}
	return false
}

// flush writes a summary event for every kind of decision counted so far.
func (l *netLimiter) flush() {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	sums := make([]*netSummary, 0, len(l.order))
	for _, k := range l.order {
		sums = append(sums, l.pending[k])
	}
	l.pending, l.order = map[string]*netSummary{}, nil
	l.mu.Unlock()
	for _, s := range sums {
		l.emit(s.event())
	}
}

// event is the summary of s: the first decision's type, verdict and rule,
// with the count and a sample of the targets.
func (s *netSummary) event() audit.Event {
	e := s.template
	e.Timestamp = s.last
	e.Resource = strings.Join(s.targets, " ")
	e.Reason = fmt.Sprintf("%d %s like this between %s and %s, logged as one (more than %d a second)",
		s.count, plural(s.count, "decision", "decisions"), s.first.UTC().Format(time.RFC3339Nano), s.last.UTC().Format(time.RFC3339Nano), netRate)
	d := map[string]any{"summarized": s.count, "first": s.first, "last": s.last, "targets": s.targets}
	for _, k := range []string{"proto", "credential"} {
		if v, ok := s.template.Details[k]; ok {
			d[k] = v
		}
	}
	e.Details = d
	return e
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
