package agentbox

import (
	"encoding/json"
	"sync"
	"time"
)

// ExecResult is the outcome of one sandboxed command.
type ExecResult struct {
	// ExitCode is the command's exit status; 128+N when a signal N ended it;
	// 137 when agentbox killed it (timeout, limit).
	ExitCode int `json:"exit_code"`
	// Stdout and Stderr are what Exec captured, up to MaxOutputBytes each.
	// Wrap streams instead and leaves them empty.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Duration is the wall-clock time from start to exit.
	Duration time.Duration `json:"-"`
	// Truncated is set when output beyond MaxOutputBytes was discarded.
	Truncated bool `json:"truncated"`
	// TimedOut is set when the timeout killed the command.
	TimedOut bool `json:"timed_out"`
	// Sandboxed is set when the command ran inside a sandbox.
	Sandboxed bool `json:"sandboxed"`
	// Layers are the isolation layers that were actually applied.
	Layers []string `json:"layers"`
	// Degraded lists the layers of Layers that say the policy was not
	// fully enforced: the warn fallback ran without something it needs
	// (the reduced tier, no Landlock). Empty for a full sandbox.
	Degraded []string `json:"degraded,omitempty"`
	// Violations are the policy refusals agentbox knows of (for example a
	// connection the egress proxy refused, or a credential withheld from a
	// header its value may not go into), and what the command changed that
	// agentbox had to leave (a terminal's modes while another job holds it).
	Violations []Violation `json:"violations,omitempty"`
	// Classification is the classifier's verdict on the command.
	Classification ClassifyResult `json:"classification"`
}

// Violation is one refusal observed while the command ran.
type Violation struct {
	Kind   string `json:"kind"` // "network", "credential", "filesystem", "memory", "terminal"
	Detail string `json:"detail"`
	Rule   string `json:"rule,omitempty"`
	// Path is the file the violation is about, where it is about one.
	Path string `json:"path,omitempty"`
}

// MarshalJSON adds the duration in milliseconds.
func (r ExecResult) MarshalJSON() ([]byte, error) {
	type plain ExecResult
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(r), float64(r.Duration.Microseconds()) / 1000})
}

// capBuffer keeps the first max bytes written to it and counts the rest.
type capBuffer struct {
	mu        sync.Mutex
	buf       []byte
	max       int64
	truncated bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - int64(len(b.buf))
	switch {
	case room <= 0:
		b.truncated = b.truncated || len(p) > 0
	case int64(len(p)) > room:
		b.buf = append(b.buf, p[:room]...)
		b.truncated = true
	default:
		b.buf = append(b.buf, p...)
	}
	return len(p), nil // keep the command running: never report short writes
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
