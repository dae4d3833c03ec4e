package classify

import (
	"slices"
	"strings"
)

// gitValueOpts are git's global options that take a separate value.
var gitValueOpts = newSet("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path", "--list-cmds")

// gitSub returns git's subcommand and its arguments, skipping global options.
func gitSub(u *unit) (string, []field) {
	if i := gitSubAt(u.args); i >= 0 {
		return u.args[i].val, u.args[i+1:]
	}
	return "", nil
}

// runGit classifies commands hidden in git's -c configuration, in
// `git config KEY VALUE` for keys that run commands, and in --upload-pack
// style options.
func (a *analyzer) runGit(u *unit) (stream, bool) {
	if !u.gitEnvIn {
		// Configuration from the environment is read as git -c: judge it
		// with the same checks, then leave the call's words as written.
		cfg, ok := a.gitEnvConfig(u)
		u.gitEnvIn = true
		if !ok || a.gitConfigFromFile(u) {
			defer func() { u.script = &stream{traits: trUnknown} }()
		}
		args := u.args
		if withEnv, changed := a.gitConfigEnvArgs(u); changed {
			u.args = withEnv // --config-env=KEY=VAR is -c KEY=$VAR
		}
		if len(cfg) > 0 {
			u.args = append(cfg, u.args...)
		}
		defer func() { u.args = args }()
	}
	cmdVal := func(f field, v string) {
		g := f
		g.val = strings.TrimPrefix(strings.TrimSpace(v), "!")
		switch {
		case g.val == "" && g.dyn:
			// --config-env=core.fsmonitor=X, X not set on the line: the
			// command is the environment's.
			u.script = &stream{traits: trUnknown}
		case g.val != "":
			a.shellString(u, g)
		}
	}
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case (v == "-c" || v == "--config") && i+1 < len(u.args):
			i++
			a.gitConfigPair(u, u.args[i], cmdVal)
		case strings.HasPrefix(v, "--") && strings.Contains(v, "=") && gitConfigOption(v[:strings.IndexByte(v, '=')]):
			// git clone --config=K=V, --conf=K=V (found by red-team round 49)
			g := u.args[i]
			_, g.val, _ = strings.Cut(v, "=")
			a.gitConfigPair(u, g, cmdVal)
		case strings.Contains(v, "=") && slices.ContainsFunc(gitCmdLongOpts, func(o string) bool { return longAbbrev(v, o) || strings.HasPrefix(v, o+"=") }):
			_, val, _ := strings.Cut(v, "=")
			cmdVal(u.args[i], val)
		case len(v) > 2 && strings.HasPrefix(v, "-O") && gitSubIs(u, "grep"):
			cmdVal(u.args[i], v[2:]) // git grep -O<pager>: the value is attached or absent
		case strings.HasPrefix(v, "ext::"):
			a.gitExtURL(u, u.args[i])
		case (v == "--upload-pack" || v == "--receive-pack" || v == "-u" || v == "--exec" || v == "-x" || v == "--extcmd") && i+1 < len(u.args):
			if v == "-x" || v == "-u" {
				if sub, _ := gitSub(u); (v == "-x" && sub != "rebase" && sub != "difftool") || (v == "-u" && sub != "clone") {
					continue
				}
			}
			i++
			cmdVal(u.args[i], u.args[i].val)
		}
	}
	a.runGitAliases(u)
	switch sub, rest := gitSub(u); sub {
	case "config":
		ops := gitConfigOperands(rest)
		if len(ops) >= 2 && gitExecKey(ops[0].val) {
			cmdVal(ops[1], ops[1].val)
		}
	case "submodule", "bisect":
		// git submodule [--quiet] foreach [--recursive] CMD, git bisect run CMD
		want := map[string]string{"submodule": "foreach", "bisect": "run"}[sub]
		for i := 0; i < len(rest); i++ {
			if strings.HasPrefix(rest[i].val, "-") {
				continue
			}
			if rest[i].val == want {
				cmd := rest[i+1:]
				for len(cmd) > 0 && strings.HasPrefix(cmd[0].val, "-") && len(cmd[0].val) > 1 {
					cmd = cmd[1:]
				}
				a.argvOrShell(u, "git", cmd)
			}
			break
		}
	}
	return a.produce(u), true
}

// gitConfigOption reports whether the long option name is clone's
// --config by any abbreviation.
func gitConfigOption(name string) bool {
	return name == "--config" || isAbbrev(name, "--config") && len(name) > len("--co")
}

// gitConfigPair judges one KEY=VALUE setting given on the command line (or
// built from GIT_CONFIG_COUNT): a command key's value as the command it
// is, and an ext:: URL a remote's url or a url.BASE.insteadOf names (git
// -c 'remote.o.url=ext::sh -c …' ls-remote o; found by red-team round 49).
func (a *analyzer) gitConfigPair(u *unit, f field, cmdVal func(field, string)) {
	k, val, ok := strings.Cut(f.val, "=")
	if !ok {
		return
	}
	if gitExecKey(k) {
		cmdVal(f, val)
	}
	lk := strings.ToLower(k)
	g := f
	switch {
	case strings.HasPrefix(lk, "remote.") && (strings.HasSuffix(lk, ".url") || strings.HasSuffix(lk, ".pushurl")):
		g.val = val
	case strings.HasPrefix(lk, "url.") && (strings.HasSuffix(lk, ".insteadof") || strings.HasSuffix(lk, ".pushinsteadof")):
		g.val = k[len("url."):strings.LastIndexByte(k, '.')]
	default:
		return
	}
	if strings.HasPrefix(g.val, "ext::") {
		a.gitExtURL(u, g)
	}
}

// gitCmdLongOpts are long options of git's subcommands whose value is a
// command, taken by any abbreviation as git's option parser does.
var gitCmdLongOpts = []string{"--upload-pack", "--receive-pack", "--exec", "--open-files-in-pager", "--extcmd"}

// gitSubIs reports whether git's subcommand is sub.
func gitSubIs(u *unit, sub string) bool {
	s, _ := gitSub(u)
	return s == sub
}

// gitExtURL classifies the command of an ext:: remote (git clone
// 'ext::sh -c rm% -rf% ~'), which git runs where protocol.ext.allow (or
// GIT_ALLOW_PROTOCOL, or a configuration file the classifier does not
// read) lets it: words split at unescaped spaces, "% " a space, "%%" a
// percent sign, %s and %S the service's name.
func (a *analyzer) gitExtURL(u *unit, f field) {
	var words []field
	var w strings.Builder
	s := strings.TrimPrefix(f.val, "ext::")
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s):
			i++
			switch s[i] {
			case 's':
				w.WriteString("upload-pack")
			case 'S':
				w.WriteString("git-upload-pack")
			case 'G':
				i = len(s) // %G…: the rest is git's own argument
			default:
				w.WriteByte(s[i])
			}
		case s[i] == ' ':
			words = append(words, field{val: w.String(), dyn: f.dyn})
			w.Reset()
		default:
			w.WriteByte(s[i])
		}
	}
	if w.Len() > 0 {
		words = append(words, field{val: w.String(), dyn: f.dyn})
	}
	if len(words) > 0 {
		a.run(u.inner("git", words))
	}
}

// gitConfigOperands returns the operands of git config: its non-option
// words, less the values of -f/--file and --blob (git config -f FILE KEY
// VALUE).
func gitConfigOperands(fs []field) []field {
	var out []field
	for i := 0; i < len(fs); i++ {
		switch v := fs[i].val; {
		case v == "-f" || v == "--file" || v == "--blob":
			i++
		case !strings.HasPrefix(v, "-"):
			out = append(out, fs[i])
		}
	}
	return out
}

func nonOptions(fs []field) []field {
	var out []field
	for _, f := range fs {
		if !strings.HasPrefix(f.val, "-") {
			out = append(out, f)
		}
	}
	return out
}

// gitConfigWrites reports whether a git config invocation changes settings.
func gitConfigWrites(u *unit) bool {
	_, rest := gitSub(u)
	if hasExactFlag(rest, "le", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--show-origin", "--show-scope", "--null") && !hasFlag(rest, "e", "--edit", "--unset", "--add", "--replace-all") {
		return false
	}
	if hasFlag(rest, "e", "--edit", "--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section") {
		return true
	}
	ops := nonOptions(rest)
	if len(ops) > 0 {
		switch ops[0].val {
		case "get", "list":
			return false
		case "set", "unset", "edit", "rename-section", "remove-section":
			return true
		}
	}
	return len(ops) >= 2
}

var gitAlwaysWrite = newSet("push", "commit", "rebase", "merge", "cherry-pick", "revert", "am", "filter-branch",
	"filter-repo", "update-ref", "replace", "pull", "send-email", "prune", "commit-tree", "fast-import", "p4", "svn",
	"send-pack", "http-push")

func gitWrites(sub string, rest []field, u *unit) bool {
	if gitAlwaysWrite.has(sub) {
		if sub == "commit" { // commit -n is --no-verify, not a dry run
			return !hasExactFlag(rest, "", "--dry-run", "--help")
		}
		return !hasExactFlag(rest, "n", "--dry-run", "--abort", "--help")
	}
	has := func(short string, long ...string) bool { return hasFlag(rest, short, long...) }
	ops := nonOptions(rest)
	switch sub {
	case "reset":
		if has("", "--hard", "--soft", "--merge", "--keep", "--mixed") {
			return true
		}
		for _, f := range ops {
			v := f.val
			if strings.ContainsAny(v, "~^") || strings.Contains(v, "@{") || strings.HasPrefix(v, "origin/") || strings.HasPrefix(v, "upstream/") || isHexish(v) {
				return true
			}
		}
	case "checkout":
		if has("fB", "--force", "--ours", "--theirs") {
			return true
		}
		for _, f := range rest {
			if f.val == "." || f.val == "--" {
				return true
			}
		}
	case "switch":
		return has("fC", "--force", "--discard-changes", "--force-create")
	case "restore":
		return !has("S", "--staged") || has("W", "--worktree")
	case "clean":
		return has("f", "--force") && !has("n", "--dry-run")
	case "branch":
		return has("dDmMcCfu", "--delete", "--move", "--copy", "--force", "--set-upstream-to", "--unset-upstream", "--edit-description")
	case "tag":
		if has("ldv", "--list", "--delete", "--verify") {
			return has("d", "--delete")
		}
		return len(ops) > 0
	case "remote":
		if len(ops) > 0 {
			switch ops[0].val {
			case "add", "remove", "rm", "rename", "set-url", "set-head", "set-branches", "prune", "update":
				return true
			}
		}
	case "config":
		return gitConfigWrites(u)
	case "gc":
		return has("", "--prune", "--aggressive")
	case "reflog":
		return len(ops) > 0 && (ops[0].val == "expire" || ops[0].val == "delete")
	case "notes":
		return len(ops) > 0 && ops[0].val != "list" && ops[0].val != "show"
	case "symbolic-ref":
		return len(ops) >= 2 || has("d", "--delete")
	case "stash":
		return false
	case "worktree":
		return len(ops) > 0 && ops[0].val == "remove" && has("f", "--force")
	case "submodule":
		return len(ops) > 0 && ops[0].val == "deinit" && has("f", "--force")
	case "lfs":
		return len(ops) > 0 && (ops[0].val == "push" || ops[0].val == "prune" || ops[0].val == "migrate")
	}
	return false
}

func isHexish(v string) bool {
	if len(v) < 7 || len(v) > 40 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if digitVal(v[i]) < 0 || v[i] >= 'A' && v[i] <= 'F' {
			return false
		}
	}
	return true
}

func matchGitWrite(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || u.name != "git" {
		return false
	}
	sub, rest := gitSub(u)
	return gitWrites(sub, rest, u)
}

func matchGitStashDrop(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || u.name != "git" {
		return false
	}
	sub, rest := gitSub(u)
	if sub != "stash" {
		return false
	}
	ops := nonOptions(rest)
	return len(ops) > 0 && (ops[0].val == "drop" || ops[0].val == "clear")
}

var gitReadSubs = newSet("status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
	"rev-list", "ls-files", "ls-tree", "ls-remote", "cat-file", "grep", "reflog", "branch", "tag", "remote", "config",
	"stash", "diff-tree", "diff-files", "diff-index", "merge-base", "name-rev", "for-each-ref", "show-ref",
	"show-branch", "whatchanged", "count-objects", "verify-commit", "verify-tag", "cherry", "range-diff", "help",
	"version", "check-ignore", "check-attr", "var", "worktree", "submodule", "fsck", "blame", "log", "describe", "count-objects")

func matchGitRead(u *unit, _ *Classifier) bool {
	if u.kind != kCall || u.dynName || u.name != "git" {
		return false
	}
	sub, rest := gitSub(u)
	if !gitReadSubs.has(sub) || gitWrites(sub, rest, u) {
		return false
	}
	// Settings and programs from the command line: -c, --exec-path (any
	// spelling). Checked before the subcommand's own rule, which returned
	// first for diff, log and show (found by red-team round 49).
	for _, f := range u.args[:len(u.args)-len(rest)] {
		if f.val == "-c" || strings.HasPrefix(f.val, "--exec-path") {
			return false
		}
	}
	ops := nonOptions(rest)
	switch sub {
	case "stash":
		return len(ops) > 0 && (ops[0].val == "list" || ops[0].val == "show")
	case "branch":
		return len(ops) == 0 || hasExactFlag(rest, "lar", "--list", "--all", "--remotes", "--contains", "--merged", "--no-merged", "--points-at")
	case "reflog":
		return len(ops) == 0 || ops[0].val == "show"
	case "remote":
		return len(ops) == 0 || ops[0].val == "show" || ops[0].val == "get-url"
	case "worktree":
		return len(ops) > 0 && ops[0].val == "list"
	case "submodule":
		return len(ops) > 0 && (ops[0].val == "status" || ops[0].val == "summary")
	case "diff", "log", "show", "diff-tree", "diff-index", "diff-files", "whatchanged", "range-diff", "shortlog", "blame", "format-patch":
		return !hasFlag(rest, "", "--output", "--ext-diff")
	case "grep":
		return !hasFlag(rest, "O", "--open-files-in-pager")
	}
	return true
}
