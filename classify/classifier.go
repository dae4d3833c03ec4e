package classify

import (
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Result is the verdict on a command line.
type Result struct {
	// Decision is the most severe decision over every part of the line.
	Decision Decision `json:"decision"`
	// Rule names what decided: a built-in rule name (see BuiltinRuleNames)
	// or "user:<pattern>" for a user rule. Empty when no rule matched.
	Rule string `json:"rule,omitempty"`
	// Reason is one human sentence explaining the decision.
	Reason string `json:"reason,omitempty"`
	// Command is the normalised simple command that decided.
	Command string `json:"command,omitempty"`
}

// UserRule is a rule supplied by the user. Pattern is a glob over the
// normalised simple command (program base name and arguments after quote
// removal, joined by single spaces; see Result.Command), matched both with
// and without its NAME=VALUE prefixes and redirections: '*' matches any run
// of characters including spaces and '/', '?' one character, '[…]' a class.
// User rules are evaluated before the built-in rules; the first user rule
// that matches a simple command decides it.
type UserRule struct {
	Pattern     string
	Decision    Decision
	Description string
}

// RuleOverride changes the decision of a built-in rule.
type RuleOverride struct {
	Rule     string
	Decision Decision
}

// Errors returned (wrapped) by New; the message names the offending item.
var (
	ErrInvalidPattern = errors.New("invalid pattern")
	ErrUnknownRule    = errors.New("unknown rule")
	ErrInvalidRule    = errors.New("invalid rule")
)

// config collects what the options set.
type config struct {
	userRules []UserRule
	overrides []RuleOverride
	protected []string
	home      *string
}

// Option configures a Classifier.
type Option func(*config)

// WithCustomRules adds user rules, evaluated in order before the built-ins.
func WithCustomRules(rules ...UserRule) Option {
	return func(c *config) { c.userRules = append(c.userRules, rules...) }
}

// WithRuleOverrides changes the decisions of built-in rules. The
// parse-error rule cannot be lowered to Allow.
func WithRuleOverrides(overrides ...RuleOverride) Option {
	return func(c *config) { c.overrides = append(c.overrides, overrides...) }
}

// WithDefaultProtectedPaths makes writes aimed at the default protected
// paths escalate (rule protected-path-write): .git/hooks, .git/config,
// CI configuration (.github/workflows, .gitlab-ci.yml, …), shell rc and
// profile files, .gitconfig, .gitmodules, .vscode/, .idea/, .mcp.json,
// .envrc and agentbox policy files. See DefaultProtectedPaths.
func WithDefaultProtectedPaths() Option {
	return func(c *config) { c.protected = append(c.protected, DefaultProtectedPaths()...) }
}

// WithProtectedPaths makes writes aimed at paths matching the globs
// escalate. A glob without '/' matches any path component ("*.pem",
// ".bashrc"); one with '/' matches a run of components anywhere in the path
// (".git/hooks"), or from the start when it begins with '/' or '~/'; '**'
// matches any number of components. A match also protects everything below,
// and a directory copied, moved or extracted into wholesale counts when it
// is a parent of a protected path (cp -r x .git/, tar -x -C .git). On macOS
// and Windows case is ignored.
func WithProtectedPaths(globs ...string) Option {
	return func(c *config) { c.protected = append(c.protected, globs...) }
}

// WithHomeDir names the caller's home directory as an absolute path: a
// write aimed at a path under it is judged as the same path under ~ is as
// well (tar -x -C /home/user is home-overwrite, > /home/user/.ssh/x is
// output-redirect-system, a protected "~/.bashrc" covers
// /home/user/.bashrc). It only adds matches: the path as written is judged
// too. Without this option the home is $HOME of the process; "" (or a
// relative path, or /) turns the mapping off.
func WithHomeDir(dir string) Option {
	return func(c *config) { c.home = &dir }
}

// DefaultProtectedPaths returns the globs WithDefaultProtectedPaths adds.
func DefaultProtectedPaths() []string {
	return []string{
		".git/hooks", ".git/config", ".git/modules/**/hooks", ".git/modules/**/config", ".git/info/attributes", ".gitconfig", ".gitmodules", ".gitattributes",
		".github/workflows", ".github/actions", ".gitlab-ci.yml", ".gitlab-ci.yaml", ".circleci",
		".travis.yml", "Jenkinsfile", "azure-pipelines.yml", ".buildkite", "bitbucket-pipelines.yml",
		".drone.yml", ".woodpecker.yml", ".woodpecker",
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".bashrc.d", ".profile", ".zshrc", ".zshenv",
		".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", ".inputrc",
		".config/fish", ".xprofile", ".xsessionrc", ".xinitrc", "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/zsh",
		".vscode", ".idea", ".devcontainer", ".devcontainer.json", ".mcp.json", ".envrc", ".claude/settings.json", ".claude/settings.local.json", ".cursor/mcp.json",
		".agentbox", "agentbox.yaml", "agentbox.yml", ".agentbox.yaml", ".agentbox.yml",
		".roo", ".kilocode", ".continue", ".amazonq", ".kiro", ".codex", ".junie", ".qwen", ".opencode",
		"opencode.json", "opencode.jsonc", "crush.json", ".crush.json", ".aider.conf.yml",
	}
}

// Classifier classifies commands. It is immutable after New and safe for
// concurrent use.
type Classifier struct {
	userRules []UserRule
	decisions []Decision // effective decision per built-in rule, by index
	protected []string
	home      string // the caller's home directory (see WithHomeDir), "" for none
	// foldCase matches protected paths without regard to case, as the
	// file systems of macOS and Windows do (.GIT/hooks is .git/hooks).
	foldCase bool
}

// New builds a Classifier. It fails, naming the culprit, on an invalid user
// pattern or decision, an unknown rule name in an override, or an invalid
// protected-path glob.
func New(opts ...Option) (*Classifier, error) {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c := &Classifier{decisions: make([]Decision, len(builtinRules)), foldCase: runtime.GOOS == "darwin" || runtime.GOOS == "windows"}
	for i, r := range builtinRules {
		c.decisions[i] = r.decision
	}
	for _, ur := range cfg.userRules {
		if strings.TrimSpace(ur.Pattern) == "" {
			return nil, fmt.Errorf("classify: user rule: %w: empty pattern", ErrInvalidPattern)
		}
		if _, err := path.Match(ur.Pattern, ""); err != nil {
			return nil, fmt.Errorf("classify: user rule %q: %w: %w", ur.Pattern, ErrInvalidPattern, err)
		}
		if !ur.Decision.Valid() {
			return nil, fmt.Errorf("classify: user rule %q: %w: decision %d", ur.Pattern, ErrInvalidRule, int(ur.Decision))
		}
		ur.Pattern = collapseSpace(ur.Pattern)
		c.userRules = append(c.userRules, ur)
	}
	for _, o := range cfg.overrides {
		i, ok := ruleIndex()[o.Rule]
		if !ok {
			return nil, fmt.Errorf("classify: override: %w %q", ErrUnknownRule, o.Rule)
		}
		if !o.Decision.Valid() {
			return nil, fmt.Errorf("classify: override of %q: %w: decision %d", o.Rule, ErrInvalidRule, int(o.Decision))
		}
		if o.Rule == RuleParseError && o.Decision == Allow {
			return nil, fmt.Errorf("classify: override of %q: %w: input the parser rejects cannot be allowed", o.Rule, ErrInvalidRule)
		}
		c.decisions[i] = o.Decision
	}
	for _, g := range cfg.protected {
		if err := validGlob(g); err != nil {
			return nil, fmt.Errorf("classify: protected path %q: %w: %w", g, ErrInvalidPattern, err)
		}
		c.protected = append(c.protected, g)
	}
	if cfg.home != nil {
		c.home = cleanHome(*cfg.home)
	} else if h, err := os.UserHomeDir(); err == nil {
		c.home = cleanHome(h)
	}
	return c, nil
}

// defaultClassifier backs Default, built on first use: programs that link
// the package without classifying (agentbox kill, ps, verify) do not pay
// for it.
var defaultClassifier = sync.OnceValue(func() *Classifier {
	c, _ := New()
	return c
})

// Default returns a shared Classifier with the built-in rules and no options.
func Default() *Classifier { return defaultClassifier() }

// Classify classifies a shell command line as bash reads it; ClassifyShell
// reads it as a given shell does.
func (c *Classifier) Classify(command string) Result {
	return c.classifyAs(syntax.LangBash, true, posixOff, command)
}

// ClassifyShell judges command as the shell at path shell reads it when
// run as `shell -c command`: a POSIX shell such as dash does not split
// text where bash does ($'…' is not a quote there), and Classify reads as
// bash. A shell whose dialect is not known for sure is read both ways, the
// more severe verdict standing (see dialect.go).
func (c *Classifier) ClassifyShell(shell, command string) Result {
	var res Result
	posix := posixOff
	if normName(shell) == "sh" {
		posix = posixOn // bash run as sh is in posix mode
	}
	for i, lang := range shellViews(shell) {
		r := c.classifyAs(lang, noTopLocal.has(shellName(shell)), posix, command)
		if i == 0 || r.Decision > res.Decision {
			res = r
		}
	}
	return res
}

// classifyAs is Classify with text read as lang reads it by a shell where
// local outside a function fails where noLocal is set, in bash's posix
// mode where posix is set.
func (c *Classifier) classifyAs(lang syntax.LangVariant, noLocal bool, posix posixMode, command string) (res Result) {
	defer c.failClosed(&res)
	a := newAnalyzer(c)
	a.lang, a.noLocal, a.posix = lang, noLocal, posix
	if len(command) > maxInput {
		a.emit(&unit{kind: kParseError, info: "command longer than 1 MiB"})
		return a.result()
	}
	a.sameShell(command, nil)
	return a.result()
}

// classifierBug opens the parse-error detail of a command whose analysis
// panicked (the tests look for it).
const classifierBug = "a bug in agentbox's classifier"

// failClosed turns a panic in the analysis, a bug that a command's text
// must never turn into a crash of the program that asked (an agent's
// host), into the parse-error rule's decision: the command is judged
// unreadable, which is never Allow.
func (c *Classifier) failClosed(res *Result) {
	v := recover()
	if v == nil {
		return
	}
	a := newAnalyzer(c)
	a.emit(&unit{kind: kParseError, info: fmt.Sprintf("%s: %v", classifierBug, v)})
	*res = a.result()
}

// ClassifyArgs classifies an argument vector: name is the program and args
// its arguments, taken literally (no shell parsing of the words). Wrappers
// still unwrap, and strings handed to a shell (bash -c STR) are parsed.
func (c *Classifier) ClassifyArgs(name string, args []string) (res Result) {
	defer c.failClosed(&res)
	a := newAnalyzer(c)
	u := &unit{kind: kCall}
	u.setProgram(field{val: name})
	for _, s := range args {
		u.args = append(u.args, field{val: s, quoted: true})
	}
	a.run(u)
	return a.result()
}

func (a *analyzer) result() Result {
	if !a.any {
		return Result{Decision: Allow, Reason: "nothing to run"}
	}
	return a.res
}

// emit decides one unit and folds the decision into the line's result:
// the most severe decision wins, the first unit to reach it is reported.
func (a *analyzer) emit(u *unit) {
	if a.dry > 0 {
		return
	}
	r, prio, ok := a.c.decide(u)
	if !ok {
		return
	}
	if !a.any || r.Decision > a.res.Decision || r.Decision == a.res.Decision && prio < a.prio {
		a.res, a.prio = r, prio
	}
	a.any = true
}

// decide evaluates user rules, then built-in rules, on one unit. prio ranks
// results of equal decision (lower wins: user rules, then table order).
// ok is false for a pseudo unit that no rule matched.
func (c *Classifier) decide(u *unit) (r Result, prio int, ok bool) {
	cmd := ""
	if u.kind == kCall {
		cmd = u.normalized()
		bare := cmd
		if len(u.env) > 0 || len(u.redirs) > 0 {
			bare = u.render(false)
		}
		for _, ur := range c.userRules {
			if globMatch(ur.Pattern, cmd) || bare != cmd && globMatch(ur.Pattern, bare) {
				reason := ur.Description
				if reason == "" {
					reason = "matches user rule " + ur.Pattern
				}
				return Result{Decision: ur.Decision, Rule: "user:" + ur.Pattern, Reason: reason, Command: cmd}, -1, true
			}
		}
	} else if u.kind == kParseError {
		cmd = truncate(u.prog, 200)
	} else if u.name != "" {
		cmd = u.info
	}
	best := -1
	for i := range builtinRules {
		br := &builtinRules[i]
		if br.needsProtected && len(c.protected) == 0 {
			continue
		}
		if !br.match(u, c) {
			continue
		}
		if best < 0 || c.decisions[i] > c.decisions[best] {
			best = i
		}
	}
	if best < 0 {
		if u.kind != kCall {
			return Result{}, 0, false
		}
		if u.name == "" && !u.dynName && !writesFile(u) {
			return Result{Decision: Allow, Reason: "only reads through a redirection", Command: cmd}, len(builtinRules), true
		}
		return Result{Decision: Sandboxed, Reason: "no rule matched: runs in the sandbox", Command: cmd}, len(builtinRules), true
	}
	br := &builtinRules[best]
	reason := br.desc
	if u.info != "" && u.kind != kCall {
		reason += " (" + u.info + ")"
	}
	return Result{Decision: c.decisions[best], Rule: br.name, Reason: reason, Command: cmd}, best, true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// globMatch matches a user pattern against a normalised command; unlike
// path.Match, '*' also matches '/'.
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 0 && pattern[0] == '*' {
				pattern = pattern[1:]
			}
			if pattern == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(pattern, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pattern, s = pattern[1:], s[len(firstRune(s)):]
		case '[', '\\':
			n := nextChunk(pattern)
			ok, err := path.Match(pattern[:n], firstRune(s))
			if err != nil || !ok || s == "" {
				return false
			}
			pattern, s = pattern[n:], s[len(firstRune(s)):]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

// nextChunk returns the length of the single-character pattern at the start.
func nextChunk(p string) int {
	switch p[0] {
	case '\\':
		if len(p) > 1 {
			return 2
		}
	case '[':
		if i := strings.IndexByte(p[1:], ']'); i >= 0 {
			return i + 2
		}
	}
	return 1
}

func firstRune(s string) string {
	for i := range s {
		if i > 0 {
			return s[:i]
		}
	}
	return s
}
