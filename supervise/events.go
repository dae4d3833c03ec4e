package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/policy"
)

// eventLevel is the least audit.log_level that records each event type
// (policy.LogLevel documents the levels):
//
//	off       nothing (no log file is written; alerts are still printed)
//	minimal   agent_start, agent_exit, agent_killed, limit_breached, alert,
//	          and every denial: network_deny, filesystem_deny, tool_deny,
//	          command_refused, credential_leak_blocked
//	standard  minimal plus allowed decisions: network_allow, tool_allow,
//	          command_exec
//	full      standard plus filesystem_allow and credential_use
//
// A type missing here is recorded at full only.
var eventLevel = map[string]policy.LogLevel{
	audit.AgentStart:            policy.LogMinimal,
	audit.AgentExit:             policy.LogMinimal,
	audit.AgentKilled:           policy.LogMinimal,
	audit.LimitBreached:         policy.LogMinimal,
	audit.Alert:                 policy.LogMinimal,
	audit.NetworkDeny:           policy.LogMinimal,
	audit.FilesystemDeny:        policy.LogMinimal,
	audit.ToolDeny:              policy.LogMinimal,
	audit.CommandRefused:        policy.LogMinimal,
	audit.CredentialLeakBlocked: policy.LogMinimal,
	audit.NetworkAllow:          policy.LogStandard,
	audit.ToolAllow:             policy.LogStandard,
	audit.CommandExec:           policy.LogStandard,
	audit.FilesystemAllow:       policy.LogFull,
	audit.CredentialUse:         policy.LogFull,
}

// Records reports whether an audit log at level records events of type
// eventType.
func Records(level policy.LogLevel, eventType string) bool {
	need, ok := eventLevel[eventType]
	if !ok {
		need = policy.LogFull
	}
	return slices.Index(policy.LogLevels, level) >= slices.Index(policy.LogLevels, need) && level != policy.LogOff
}

// maxAlertLines bounds the alert lines one run prints of each kind; later
// alerts of that kind are still logged. The bound is per kind so that a
// flood of one (junk connections refused) cannot silence another (a
// credential leak refused).
const maxAlertLines = 100

// recorder writes one agent's audit events and raises its alerts.
type recorder struct {
	log     *audit.Log // nil when the level is off
	level   policy.LogLevel
	alertOn map[string]bool
	id      string
	name    string
	notify  func(Notice)
	logger  *slog.Logger

	net *netLimiter // bounds the proxy's decisions logged one by one

	mu      sync.Mutex
	opened  bool           // agent_start is written
	pending []pendingEvent // events that came before agent_start
	alerts  map[string]int // alert lines printed, by kind
	errs    []error
}

// pendingEvent is an event held back until agent_start is in the log, so
// that the log always begins a run with its agent_start.
type pendingEvent struct {
	e                  audit.Event
	durable, announced bool
}

func newRecorder(log *audit.Log, m *policy.Manifest, id string, notify func(Notice), logger *slog.Logger) *recorder {
	r := &recorder{log: log, level: m.Audit.LogLevel, alertOn: map[string]bool{}, id: id, name: m.Name, notify: notify, logger: logger}
	r.net = newNetLimiter(func(e audit.Event) { r.emit(e, false) })
	for _, k := range m.Audit.AlertOn {
		r.alertOn[k] = true
	}
	return r
}

// emit records e (if the level asks for it) and raises an alert when
// alert_on names its type. durable events are on disk when emit returns;
// the others are queued (proxy decisions: the proxy must not wait).
func (r *recorder) emit(e audit.Event, durable bool) { r.record(e, durable, false) }

// emitAnnounced is emit for an event the operator has just been shown in a
// line of its own (a 🛑 kill line): its alert is logged, not printed twice.
func (r *recorder) emitAnnounced(e audit.Event, durable bool) { r.record(e, durable, true) }

func (r *recorder) record(e audit.Event, durable, announced bool) {
	e.AgentID, e.AgentName = r.id, r.name
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now()
	}
	if e.EventType != audit.AgentStart && e.EventType != audit.CommandRefused {
		r.mu.Lock()
		if !r.opened {
			r.pending = append(r.pending, pendingEvent{e, durable, announced})
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
	if r.log != nil && Records(r.level, e.EventType) {
		var err error
		if durable {
			err = r.log.Append(context.Background(), e)
		} else {
			err = r.log.AppendAsync(e)
		}
		if err != nil {
			r.fail(err)
		}
	}
	if r.alertOn[e.EventType] {
		r.raise(e.EventType, summary(e), durable, !announced)
	}
}

// alert prints one alert line and logs an alert event. kind is an alert_on
// value: an event type or a budget threshold.
func (r *recorder) alert(kind, text string, durable bool) { r.raise(kind, text, durable, true) }

func (r *recorder) raise(kind, text string, durable, print bool) {
	n := 0
	if print {
		r.mu.Lock()
		if r.alerts == nil {
			r.alerts = map[string]int{}
		}
		r.alerts[kind]++
		n = r.alerts[kind]
		r.mu.Unlock()
	}
	switch {
	case !print:
	case n <= maxAlertLines:
		r.notify(Notice{Kind: NoticeAlert, Text: kind + ": " + text})
	case n == maxAlertLines+1:
		r.notify(Notice{Kind: NoticeWarning, Text: fmt.Sprintf("more than %d %s alerts: further ones are only logged", maxAlertLines, kind)})
	}
	// "alert" is not an alert_on value, so this does not recurse.
	r.record(audit.Event{EventType: audit.Alert, Allowed: false, Resource: kind, Rule: "alert_on:" + kind, Reason: text}, durable, true)
}

// started writes agent_start (or the refusal that stands for it), then the
// events that came before it.
func (r *recorder) started(e audit.Event) {
	r.emit(e, true)
	r.mu.Lock()
	pending := r.pending
	r.pending, r.opened = nil, true
	r.mu.Unlock()
	for _, p := range pending {
		r.record(p.e, p.durable, p.announced)
	}
}

// network records one decision of the egress proxy. It never blocks for a
// disk write (the audit queue is large; it blocks only when it is full).
func (r *recorder) network(d egress.Decision) {
	e := audit.Event{EventType: audit.NetworkDeny, Timestamp: d.Time, Allowed: d.Allowed,
		Resource: clip(d.Target(), maxTargetBytes), Rule: d.Rule, Reason: clip(d.Reason, maxReasonBytes), Details: map[string]any{"proto": d.Proto}}
	switch {
	case d.Rule == egress.RuleCredentialUse:
		e.EventType = audit.CredentialUse
	case d.Rule == egress.RuleCredentialLeak:
		e.EventType = audit.CredentialLeakBlocked
	case d.Allowed:
		e.EventType = audit.NetworkAllow
	}
	if d.Credential != "" {
		e.Details["credential"] = d.Credential // the name only: never a value
	}
	if d.Addr.IsValid() {
		e.Details["addr"] = d.Addr.String()
	}
	if !Records(r.level, e.EventType) && !r.alertOn[e.EventType] {
		return // neither logged nor alerted on: it must not use up the budget
	}
	if r.net.admit(e, time.Now()) {
		r.emit(e, false)
	}
}

// A request target that does not parse is logged as it was sent, and a
// proxy reads 64 KiB of header: clipped, a decision stays one small entry
// and a summary of 200 of them far below audit.MaxEntryBytes. No host name
// (253 bytes) with its port is clipped.
const (
	maxTargetBytes = 320
	maxReasonBytes = 1024
)

// clip shortens s to at most n bytes (at a UTF-8 boundary) and says how
// much it left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d more bytes)", s[:cut], len(s)-cut)
}

// flushNetwork writes the summaries of decisions not yet logged.
func (r *recorder) flushNetwork() { r.net.flush() }

func (r *recorder) fail(err error) {
	r.mu.Lock()
	first := len(r.errs) == 0
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	r.logger.Error("audit log write failed", "err", err)
	if first {
		r.notify(Notice{Kind: NoticeWarning, Text: "audit log write failed: " + err.Error()})
	}
}

// close makes every event durable (and signs a checkpoint) and returns the
// first write error, if any.
func (r *recorder) close() error {
	r.flushNetwork()
	var cerr error
	if r.log != nil {
		cerr = r.log.Close()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(append(r.errs, cerr)...)
}

// summary is the one-line description of an event in an alert.
func summary(e audit.Event) string {
	s := e.Resource
	if e.Rule != "" {
		s += " (" + e.Rule + ")"
	}
	if e.Reason != "" && e.Reason != e.Resource {
		if s != "" {
			s += ": "
		}
		s += e.Reason
	}
	return s
}
