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
// bucket for each event type, so that refusals cannot use up the budget of
// allowed connections or credential use); past it, they are counted by
// event type, rule, verdict, credential and protocol, and each count
// becomes one summary event,
// written a second after its first decision and when the run ends.
//
// A summary names every distinct target of its decisions, netSummaryTargets
// at most (a count that reaches it is written as it is and a new one
// begins), so that a flood of junk cannot hide the one connection that
// matters; a run's summaries of one event type name netNamedTargets
// targets at most, and a summary past that says how many of its decisions went to
// targets it does not name. Nothing goes unrecorded, and the log grows by
// at most netRate entries a second for each event type, plus one summary a
// second for each kind of decision and one for every netSummaryTargets
// names.
const (
	netRate           = 50  // decisions a second logged one by one, on average
	netBurst          = 500 // and at most this many at once
	netSummaryDelay   = time.Second
	netSummaryTargets = 200    // distinct targets one summary names
	netNamedTargets   = 10_000 // distinct targets the summaries of one run name
)

// netSummary counts the decisions of one kind that were not logged one by
// one.
type netSummary struct {
	template    audit.Event // the first of them
	count       int
	targets     []string
	named       map[string]bool // targets, as a set
	addrs       []string        // the distinct addresses targets resolved to, netSummaryTargets at most
	moreAddrs   int             // decisions whose address was past that
	unnamed     int             // decisions whose target the run's bound left unnamed
	first, last time.Time
}

// netBucket is one event type's budget.
type netBucket struct {
	tokens float64
	last   time.Time
}

type netLimiter struct {
	emit    func(audit.Event) // writes a summary
	flushMu sync.Mutex        // one flush at a time: the run's last waits for the timer's

	mu      sync.Mutex
	buckets map[string]*netBucket
	pending map[string]*netSummary     // the open count of each kind
	order   []*netSummary              // every count not yet written, oldest first
	named   map[string]map[string]bool // targets named in summaries so far, by event type
	timer   *time.Timer
}

func newNetLimiter(emit func(audit.Event)) *netLimiter {
	return &netLimiter{emit: emit, buckets: map[string]*netBucket{}, pending: map[string]*netSummary{}, named: map[string]map[string]bool{}}
}

// admit reports whether e is logged on its own; otherwise it is counted.
func (l *netLimiter) admit(e audit.Event, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[e.EventType]
	if b == nil {
		b = &netBucket{tokens: netBurst}
		l.buckets[e.EventType] = b
	} else {
		b.tokens = min(netBurst, b.tokens+now.Sub(b.last).Seconds()*netRate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	// The credential is part of the kind: a flood of one credential's
	// leaks must not hide another's under its name.
	key := fmt.Sprintf("%s\x00%s\x00%t\x00%v\x00%v", e.EventType, e.Rule, e.Allowed, e.Details["credential"], e.Details["proto"])
	s := l.pending[key]
	runNamed := l.named[e.EventType]
	if runNamed == nil {
		runNamed = map[string]bool{}
		l.named[e.EventType] = runNamed
	}
	// A target is charged to the run's bound once: naming it again in a
	// later summary costs nothing (cycling through a few junk names must
	// not use the bound up).
	nameable := runNamed[e.Resource] || len(runNamed) < netNamedTargets
	if s != nil && len(s.targets) == netSummaryTargets && !s.named[e.Resource] && nameable {
		s = nil // full: a new count names the next targets
	}
	if s == nil {
		s = &netSummary{template: e, first: e.Timestamp, named: map[string]bool{}}
		l.pending[key] = s
		l.order = append(l.order, s)
	}
	s.count++
	s.last = e.Timestamp
	switch {
	case s.named[e.Resource]:
	case nameable:
		runNamed[e.Resource] = true
		s.named[e.Resource] = true
		s.targets = append(s.targets, e.Resource)
	default:
		s.unnamed++
	}
	if a, ok := e.Details["addr"].(string); ok && !slices.Contains(s.addrs, a) {
		if len(s.addrs) < netSummaryTargets {
			s.addrs = append(s.addrs, a)
		} else {
			s.moreAddrs++
		}
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
	sums := l.order
	l.pending, l.order = map[string]*netSummary{}, nil
	l.mu.Unlock()
	for _, s := range sums {
		l.emit(s.event())
	}
}

// event is the summary of s: the first decision's type, verdict and rule,
// with the count and the targets.
func (s *netSummary) event() audit.Event {
	e := s.template
	e.Timestamp = s.last
	e.Resource = strings.Join(s.targets, " ")
	e.Reason = fmt.Sprintf("%d %s like this between %s and %s, logged as one (more than %d a second)",
		s.count, plural(s.count, "decision", "decisions"), s.first.UTC().Format(time.RFC3339Nano), s.last.UTC().Format(time.RFC3339Nano), netRate)
	d := map[string]any{"summarized": s.count, "first": s.first, "last": s.last, "targets": s.targets}
	if s.unnamed > 0 {
		e.Reason += fmt.Sprintf("; %d of them to targets not named here (the run's summaries of this type named %d targets before them)", s.unnamed, netNamedTargets)
		d["unnamed"] = s.unnamed
	}
	if len(s.addrs) > 0 {
		d["addrs"] = s.addrs
	}
	if s.moreAddrs > 0 {
		d["more_addrs"] = s.moreAddrs
	}
	for _, k := range []string{"proto", "credential"} {
		if v, ok := s.template.Details[k]; ok {
			d[k] = v
		}
	}
	if c, ok := s.template.Details["credential"]; ok {
		e.Reason += fmt.Sprintf("; credential %v", c)
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
