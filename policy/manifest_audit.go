package policy

import (
	"fmt"
	"strings"
)

// LogLevel is how much an agent's audit log records.
type LogLevel string

// The audit log levels, least to most.
const (
	LogOff      LogLevel = "off"      // nothing
	LogMinimal  LogLevel = "minimal"  // start, exit, kills, limit breaches, denials
	LogStandard LogLevel = "standard" // minimal plus allowed network, tool and exec decisions
	LogFull     LogLevel = "full"     // standard plus every filesystem decision and credential use
)

// LogLevels lists the levels in increasing order of detail.
var LogLevels = []LogLevel{LogOff, LogMinimal, LogStandard, LogFull}

func logLevelNames() []string {
	names := make([]string, len(LogLevels))
	for i, l := range LogLevels {
		names[i] = string(l)
	}
	return names
}

// ParseLogLevel parses a log level name.
func ParseLogLevel(s string) (LogLevel, error) {
	for _, l := range LogLevels {
		if string(l) == s {
			return l, nil
		}
	}
	msg := fmt.Sprintf("%q is not a log level; use one of %s", s, strings.Join(logLevelNames(), ", "))
	if sug := suggest(s, logLevelNames()); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	return "", fmt.Errorf("%s", msg)
}

// AlertKind describes one value audit.alert_on accepts.
type AlertKind struct {
	Name string
	Desc string
}

// AlertKinds are the events an alert can be raised on: an event of the same
// type in the audit log, or a budget threshold crossed.
var AlertKinds = []AlertKind{
	{"filesystem_deny", "the sandbox caught and undid a filesystem change (a planted agent configuration or repository renamed away, a protective mount detached); reads and writes the kernel refuses are not seen"},
	{"network_deny", "the egress proxy refused a connection"},
	{"tool_deny", "a tool call was denied"},
	{"command_refused", "the classifier or the policy refused a command"},
	{"credential_leak_blocked", "a request carried a credential placeholder to a host it is not bound to"},
	{"credential_use", "a credential was injected into a request"},
	{"limit_breached", "a limit was exceeded and the agent was killed"},
	{"agent_killed", "the agent was killed (limit, kill switch or signal)"},
	{"agent_exit", "the agent exited"},
	{"token_budget_50pct", "half of limits.max_tokens is used"},
	{"token_budget_80pct", "80% of limits.max_tokens is used"},
	{"token_budget_90pct", "90% of limits.max_tokens is used"},
	{"token_budget_100pct", "limits.max_tokens is used up"},
	{"request_budget_50pct", "half of limits.max_requests is used"},
	{"request_budget_80pct", "80% of limits.max_requests is used"},
	{"request_budget_90pct", "90% of limits.max_requests is used"},
	{"request_budget_100pct", "limits.max_requests is used up"},
	{"tool_call_budget_80pct", "80% of limits.max_tool_calls is used"},
	{"tool_call_budget_100pct", "limits.max_tool_calls is used up"},
	{"duration_budget_80pct", "80% of limits.max_duration has passed"},
}

// CheckAlertKind reports whether name is one of AlertKinds.
func CheckAlertKind(name string) error {
	names := make([]string, len(AlertKinds))
	for i, k := range AlertKinds {
		if k.Name == name {
			return nil
		}
		names[i] = k.Name
	}
	if sug := suggest(name, names); sug != "" {
		return fmt.Errorf("unknown alert %q (did you mean %q?)", name, sug)
	}
	return fmt.Errorf("unknown alert %q; known alerts: %s", name, strings.Join(names, ", "))
}
