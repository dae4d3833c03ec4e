package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Event types (DESIGN.md, "Audit log").
const (
	AgentStart            = "agent_start"
	AgentExit             = "agent_exit"
	AgentKilled           = "agent_killed"
	CommandExec           = "command_exec"
	CommandRefused        = "command_refused"
	FilesystemAllow       = "filesystem_allow"
	FilesystemDeny        = "filesystem_deny"
	NetworkAllow          = "network_allow"
	NetworkDeny           = "network_deny"
	ToolAllow             = "tool_allow"
	ToolDeny              = "tool_deny"
	CredentialUse         = "credential_use"
	CredentialLeakBlocked = "credential_leak_blocked"
	LimitBreached         = "limit_breached"
	Alert                 = "alert"
)

// eventTypes lists the known event types, in the order above.
var eventTypes = []string{
	AgentStart, AgentExit, AgentKilled, CommandExec, CommandRefused,
	FilesystemAllow, FilesystemDeny, NetworkAllow, NetworkDeny, ToolAllow, ToolDeny,
	CredentialUse, CredentialLeakBlocked, LimitBreached, Alert,
}

// EventTypes returns the known event types.
func EventTypes() []string { return slices.Clone(eventTypes) }

// KnownEventType reports whether t is one of the event types above.
func KnownEventType(t string) bool { return slices.Contains(eventTypes, t) }

// Genesis is the prev_hash of the first entry of a log.
const Genesis = "genesis"

// Event is one audit entry. Append fills ID, Hash, PrevHash and, if zero,
// Timestamp; the caller fills the rest.
type Event struct {
	ID        uint64    `json:"id"`
	Hash      string    `json:"hash"`
	PrevHash  string    `json:"prev_hash"`
	Timestamp time.Time `json:"timestamp"`
	AgentID   string    `json:"agent_id"`
	AgentName string    `json:"agent_name"`
	EventType string    `json:"event_type"`
	Allowed   bool      `json:"allowed"`
	Resource  string    `json:"resource"`
	Rule      string    `json:"rule"`
	Reason    string    `json:"reason"`
	// Details holds extra facts. Values may be strings, booleans, numbers
	// (any Go integer or float kind, json.Number), nil, time.Time and
	// time.Duration (written as strings), and slices and string-keyed maps
	// of those. Read back, numbers are json.Number and nested values are
	// []any and map[string]any.
	Details map[string]any `json:"details,omitempty"`
}

// Errors of Append that callers may branch on.
var (
	// ErrInvalidEvent reports an event that cannot be logged as given.
	ErrInvalidEvent = errors.New("audit: invalid event")
	// ErrClosed reports a use of a Log after Close.
	ErrClosed = errors.New("audit: log closed")
)

// validEventType reports whether t is snake_case: [a-z][a-z0-9_]{0,63}.
func validEventType(t string) bool {
	if len(t) == 0 || len(t) > 64 || t[0] < 'a' || t[0] > 'z' {
		return false
	}
	for i := 1; i < len(t); i++ {
		if c := t[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// members returns the entry's JSON object in the order it is written, with
// the hash member present but empty (it is filled in after hashing).
func (e *Event) members() ([]member, error) {
	if !validEventType(e.EventType) {
		return nil, fmt.Errorf("%w: event type %q is not snake_case (known: %s)", ErrInvalidEvent, e.EventType, strings.Join(eventTypes, " "))
	}
	ms := make([]member, 0, 12)
	ms = append(ms,
		member{"id", numValue(strconv.FormatUint(e.ID, 10))},
		member{"hash", strValue(e.Hash)},
		member{"prev_hash", strValue(e.PrevHash)},
		member{"timestamp", strValue(e.Timestamp.UTC().Format(time.RFC3339Nano))},
		member{"agent_id", strValue(validUTF8(e.AgentID))},
		member{"agent_name", strValue(validUTF8(e.AgentName))},
		member{"event_type", strValue(e.EventType)},
		member{"allowed", boolValue(e.Allowed)},
		member{"resource", strValue(validUTF8(e.Resource))},
		member{"rule", strValue(validUTF8(e.Rule))},
		member{"reason", strValue(validUTF8(e.Reason))},
	)
	if len(e.Details) > 0 {
		d, err := detailValue(e.Details, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: details: %w", ErrInvalidEvent, err)
		}
		ms = append(ms, member{"details", d})
	}
	return ms, nil
}

// validUTF8 replaces invalid bytes so that what is hashed is what a reader
// decodes.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// detailValue converts a Go value of Event.Details into a JSON value.
func detailValue(v any, depth int) (value, error) {
	if depth > maxDepth-2 {
		return value{}, errors.New("nested too deeply")
	}
	switch x := v.(type) {
	case nil:
		return value{kind: kindNull}, nil
	case string:
		return strValue(validUTF8(x)), nil
	case bool:
		return boolValue(x), nil
	case int:
		return numValue(strconv.FormatInt(int64(x), 10)), nil
	case int8:
		return numValue(strconv.FormatInt(int64(x), 10)), nil
	case int16:
		return numValue(strconv.FormatInt(int64(x), 10)), nil
	case int32:
		return numValue(strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return numValue(strconv.FormatInt(x, 10)), nil
	case uint:
		return numValue(strconv.FormatUint(uint64(x), 10)), nil
	case uint8:
		return numValue(strconv.FormatUint(uint64(x), 10)), nil
	case uint16:
		return numValue(strconv.FormatUint(uint64(x), 10)), nil
	case uint32:
		return numValue(strconv.FormatUint(uint64(x), 10)), nil
	case uint64:
		return numValue(strconv.FormatUint(x, 10)), nil
	case float32:
		return floatValue(float64(x), 32)
	case float64:
		return floatValue(x, 64)
	case json.Number:
		p := parser{b: []byte(x)}
		if n, err := p.number(); err == nil && p.i == len(p.b) {
			return n, nil
		}
		return value{}, fmt.Errorf("malformed number %q", string(x))
	case time.Duration:
		return strValue(x.String()), nil
	case time.Time:
		return strValue(x.UTC().Format(time.RFC3339Nano)), nil
	case []string:
		arr := make([]value, len(x))
		for i, s := range x {
			arr[i] = strValue(validUTF8(s))
		}
		return value{kind: kindArray, arr: arr}, nil
	case []any:
		arr := make([]value, len(x))
		for i, e := range x {
			var err error
			if arr[i], err = detailValue(e, depth+1); err != nil {
				return value{}, err
			}
		}
		return value{kind: kindArray, arr: arr}, nil
	case map[string]string:
		ms := make([]member, 0, len(x))
		for k, s := range x {
			ms = append(ms, member{validUTF8(k), strValue(validUTF8(s))})
		}
		return sortedObject(ms)
	case map[string]any:
		ms := make([]member, 0, len(x))
		for k, e := range x {
			d, err := detailValue(e, depth+1)
			if err != nil {
				return value{}, fmt.Errorf("%q: %w", k, err)
			}
			ms = append(ms, member{validUTF8(k), d})
		}
		return sortedObject(ms)
	default:
		return value{}, fmt.Errorf("unsupported value of type %T", v)
	}
}

// sortedObject sorts members by key for a stable line and rejects keys that
// became equal when invalid UTF-8 was replaced.
func sortedObject(ms []member) (value, error) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	for i := 1; i < len(ms); i++ {
		if ms[i].key == ms[i-1].key {
			return value{}, fmt.Errorf("duplicate key %q", ms[i].key)
		}
	}
	return objValue(ms), nil
}

// floatValue formats f the way encoding/json does.
func floatValue(f float64, bits int) (value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return value{}, fmt.Errorf("number %v cannot be written in JSON", f)
	}
	abs := math.Abs(f)
	fmtc := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		fmtc = 'e'
	}
	return numValue(strconv.FormatFloat(f, fmtc, -1, bits)), nil
}

// parsedEntry is one line of a log, parsed.
type parsedEntry struct {
	obj  []member
	id   uint64
	hash string
	prev string
}

// entryFields extracts and type-checks the members every entry must have.
func entryFields(v value) (parsedEntry, error) {
	pe := parsedEntry{obj: v.obj}
	id, ok := v.get("id")
	if !ok || id.kind != kindNumber {
		return pe, errors.New(`"id" missing or not a number`)
	}
	n, err := strconv.ParseUint(id.str, 10, 64)
	if err != nil || n == 0 {
		return pe, fmt.Errorf(`"id" %s is not a positive integer`, id.str)
	}
	pe.id = n
	for _, f := range [...]struct {
		key string
		dst *string
	}{{"hash", &pe.hash}, {"prev_hash", &pe.prev}} {
		s, ok := v.get(f.key)
		if !ok || s.kind != kindString {
			return pe, fmt.Errorf("%q missing or not a string", f.key)
		}
		*f.dst = s.str
	}
	for _, key := range [...]string{"timestamp", "event_type"} {
		if s, ok := v.get(key); !ok || s.kind != kindString {
			return pe, fmt.Errorf("%q missing or not a string", key)
		}
	}
	if a, ok := v.get("allowed"); !ok || (a.kind != kindTrue && a.kind != kindFalse) {
		return pe, errors.New(`"allowed" missing or not a boolean`)
	}
	return pe, nil
}

// toEvent converts a parsed entry into an Event.
func toEvent(pe parsedEntry) (Event, error) {
	e := Event{ID: pe.id, Hash: pe.hash, PrevHash: pe.prev}
	v := objValue(pe.obj)
	ts, _ := v.get("timestamp")
	t, err := time.Parse(time.RFC3339Nano, ts.str)
	if err != nil {
		return e, fmt.Errorf("timestamp: %w", err)
	}
	e.Timestamp = t
	strs := [...]struct {
		key string
		dst *string
	}{
		{"agent_id", &e.AgentID}, {"agent_name", &e.AgentName}, {"event_type", &e.EventType},
		{"resource", &e.Resource}, {"rule", &e.Rule}, {"reason", &e.Reason},
	}
	for _, f := range strs {
		if s, ok := v.get(f.key); ok {
			if s.kind != kindString {
				return e, fmt.Errorf("%q is not a string", f.key)
			}
			*f.dst = s.str
		}
	}
	a, _ := v.get("allowed")
	e.Allowed = a.kind == kindTrue
	if d, ok := v.get("details"); ok {
		if d.kind != kindObject {
			return e, errors.New(`"details" is not an object`)
		}
		e.Details = goValue(d).(map[string]any)
	}
	return e, nil
}

// goValue converts a parsed JSON value into plain Go values.
func goValue(v value) any {
	switch v.kind {
	case kindNull:
		return nil
	case kindFalse:
		return false
	case kindTrue:
		return true
	case kindNumber:
		return json.Number(v.str)
	case kindString:
		return v.str
	case kindArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = goValue(e)
		}
		return out
	default:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = goValue(m.val)
		}
		return out
	}
}
