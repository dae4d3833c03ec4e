package agentbox

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentbox-dev/agentbox/classify"
)

// Decision is the classifier's verdict on a command. It marshals to JSON as
// "allow", "sandboxed", "escalated" or "forbidden".
type Decision = classify.Decision

// The decisions, from least to most severe.
const (
	DecisionAllow     = classify.Allow
	DecisionSandboxed = classify.Sandboxed
	DecisionEscalated = classify.Escalated
	DecisionForbidden = classify.Forbidden
)

// ClassifyResult is the classifier's verdict with the rule that decided.
type ClassifyResult = classify.Result

// UserRule and RuleOverride customise the classifier (see package classify).
type (
	UserRule     = classify.UserRule
	RuleOverride = classify.RuleOverride
)

// Classifier judges commands before they run. *classify.Classifier
// implements it. A Classifier that also has ClassifyShell(shell, command
// string) ClassifyResult, as *classify.Classifier does, is asked with the
// shell that runs Exec's command string: Classify reads text as bash does,
// and dash (/bin/sh on Debian and Ubuntu) splits some text otherwise.
type Classifier interface {
	Classify(command string) ClassifyResult
	ClassifyArgs(name string, args []string) ClassifyResult
}

// Errors of refused commands.
var (
	// ErrForbiddenCommand: the classifier forbids the command.
	ErrForbiddenCommand = errors.New("agentbox: forbidden command")
	// ErrEscalatedCommand: the command needs a person's approval and did not
	// get it.
	ErrEscalatedCommand = errors.New("agentbox: command needs approval")
)

// ForbiddenCommandError is a command the classifier forbids. It wraps
// ErrForbiddenCommand.
type ForbiddenCommandError struct {
	Command, Rule, Reason string
}

func (e *ForbiddenCommandError) Error() string {
	return fmt.Sprintf("agentbox: forbidden by rule %s: %s", e.Rule, e.Reason)
}

// Unwrap returns ErrForbiddenCommand.
func (e *ForbiddenCommandError) Unwrap() error { return ErrForbiddenCommand }

// EscalatedCommandError is a command that needs approval and was not
// approved (no callback, or the callback said no). It wraps
// ErrEscalatedCommand.
type EscalatedCommandError struct {
	Command, Rule, Reason string
}

func (e *EscalatedCommandError) Error() string {
	return fmt.Sprintf("agentbox: needs approval (rule %s): %s", e.Rule, e.Reason)
}

// Unwrap returns ErrEscalatedCommand.
func (e *EscalatedCommandError) Unwrap() error { return ErrEscalatedCommand }

// ApprovalRequest asks a person whether an escalated command may run.
type ApprovalRequest struct {
	Command string         `json:"command"`
	Result  ClassifyResult `json:"classification"`
}

// ApprovalDecision is the answer to an ApprovalRequest.
type ApprovalDecision int

const (
	// ApprovalDeny refuses the command.
	ApprovalDeny ApprovalDecision = iota
	// ApprovalOnce lets the command run this time.
	ApprovalOnce
	// ApprovalAlways lets it run and remembers the answer in the
	// ApprovalCache, for the same command.
	ApprovalAlways
)

// ApprovalCallback decides on escalated commands. An error refuses.
type ApprovalCallback func(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)

// ApprovalCache remembers ApprovalAlways answers by command.
type ApprovalCache interface {
	Approved(command string) bool
	Remember(command string)
}

// NewMemoryApprovalCache returns an ApprovalCache that lives in memory.
func NewMemoryApprovalCache() ApprovalCache { return &memoryCache{m: make(map[string]bool)} }

type memoryCache struct {
	mu sync.Mutex
	m  map[string]bool
}

func (c *memoryCache) Approved(command string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[command]
}

func (c *memoryCache) Remember(command string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[command] = true
}

// WithClassifier classifies this call's command with c.
func WithClassifier(c Classifier) Option {
	return func(o *callOptions) error {
		if c == nil {
			return configErr("WithClassifier", "nil classifier")
		}
		o.classifier = c
		return nil
	}
}

// WithCustomRules adds user rules, evaluated before the built-in ones, for
// this call. With a Config.Classifier or WithClassifier, that classifier
// still judges the command too, and the more severe verdict stands (as for
// WithRuleOverrides and WithDefaultProtectedPaths).
func WithCustomRules(rules ...UserRule) Option {
	return func(o *callOptions) error {
		o.classifyOpts = append(o.classifyOpts, classify.WithCustomRules(rules...))
		return nil
	}
}

// WithRuleOverrides changes built-in rules' decisions for this call: an
// override that relaxes a rule cannot relax a Config.Classifier's or
// WithClassifier's verdict, which still stands beside it.
func WithRuleOverrides(overrides ...RuleOverride) Option {
	return func(o *callOptions) error {
		o.classifyOpts = append(o.classifyOpts, classify.WithRuleOverrides(overrides...))
		return nil
	}
}

// WithDefaultProtectedPaths escalates writes aimed at the protected paths
// (.git/hooks, CI configuration, shell start-up files, ...) for this call.
func WithDefaultProtectedPaths() Option {
	return func(o *callOptions) error {
		o.classifyOpts = append(o.classifyOpts, classify.WithDefaultProtectedPaths())
		return nil
	}
}

// classifier returns the classifier of a call: WithClassifier's, else the
// Config's, else the built-in rules; with the call's classifier options
// (WithCustomRules, WithRuleOverrides, WithDefaultProtectedPaths) a
// classifier built from them judges beside it, and the more severe verdict
// stands: an option that adds rules for one call never drops the host's.
func (o *callOptions) classifierFor(cfg Config) (Classifier, error) {
	base := o.classifier
	if base == nil {
		base = cfg.Classifier
	}
	if len(o.classifyOpts) > 0 {
		c, err := classify.New(o.classifyOpts...)
		if err != nil {
			return nil, configErr("classifier options", "%v", err)
		}
		if base == nil {
			return c, nil
		}
		return strictest{base, c}, nil
	}
	if base != nil {
		return base, nil
	}
	return classify.Default(), nil
}

// shellClassifier is a Classifier that judges a command string as the
// shell running it reads it (*classify.Classifier is one): bash and dash
// split some text into different commands.
type shellClassifier interface {
	ClassifyShell(shell, command string) ClassifyResult
}

// classifyIn judges command as run by shell -c: with ClassifyShell where c
// has it, else with Classify.
func classifyIn(c Classifier, shell, command string) ClassifyResult {
	if sc, ok := c.(shellClassifier); ok {
		return sc.ClassifyShell(shell, command)
	}
	return c.Classify(command)
}

// strictest asks both classifiers and keeps the more severe verdict (the
// first's on a tie).
type strictest [2]Classifier

func (s strictest) Classify(command string) ClassifyResult {
	return severer(s[0].Classify(command), s[1].Classify(command))
}

func (s strictest) ClassifyShell(shell, command string) ClassifyResult {
	return severer(classifyIn(s[0], shell, command), classifyIn(s[1], shell, command))
}

func (s strictest) ClassifyArgs(name string, args []string) ClassifyResult {
	return severer(s[0].ClassifyArgs(name, args), s[1].ClassifyArgs(name, args))
}

func severer(a, b ClassifyResult) ClassifyResult {
	if b.Decision > a.Decision {
		return b
	}
	return a
}

// gate classifies a command and applies the verdict: forbidden refuses,
// escalated asks the approval callback (or the cache), everything else runs
// — always in the sandbox.
func (m *Manager) gate(ctx context.Context, cfg Config, o *callOptions, res ClassifyResult, command string) error {
	switch res.Decision {
	case DecisionForbidden:
		return &ForbiddenCommandError{Command: command, Rule: res.Rule, Reason: res.Reason}
	case DecisionEscalated:
		if o.approved || cfg.ApprovalCache != nil && cfg.ApprovalCache.Approved(command) {
			return nil
		}
		refused := &EscalatedCommandError{Command: command, Rule: res.Rule, Reason: res.Reason}
		if cfg.ApprovalCallback == nil {
			return refused
		}
		d, err := cfg.ApprovalCallback(ctx, ApprovalRequest{Command: command, Result: res})
		switch {
		case err != nil:
			return fmt.Errorf("%w (approval failed: %v)", refused, err)
		case d == ApprovalAlways:
			if cfg.ApprovalCache != nil {
				cfg.ApprovalCache.Remember(command)
			}
			return nil
		case d == ApprovalOnce:
			return nil
		}
		return refused
	}
	return nil
}

// WithApproved runs an escalated command without asking, as if a person had
// approved it (the CLI's --approve). Forbidden commands stay refused.
func WithApproved() Option {
	return func(o *callOptions) error {
		o.approved = true
		return nil
	}
}

// Check classifies command with the default Manager's classifier.
func Check(ctx context.Context, command string) (ClassifyResult, error) {
	m, err := defaultManager()
	if err != nil {
		return ClassifyResult{}, err
	}
	return m.Check(ctx, command)
}

// Check classifies command without running it, as the shell Exec would
// run it with reads it.
func (m *Manager) Check(ctx context.Context, command string, opts ...Option) (ClassifyResult, error) {
	if err := ctx.Err(); err != nil {
		return ClassifyResult{}, err
	}
	o, err := applyOptions(opts)
	if err != nil {
		return ClassifyResult{}, err
	}
	cfg := m.Config()
	c, err := o.classifierFor(cfg)
	if err != nil {
		return ClassifyResult{}, err
	}
	return classifyIn(c, firstNonEmpty(o.shell, cfg.Shell, DefaultShell), command), nil
}
