package classify

import (
	"regexp"
	"strings"
)

// vim's ex commands (-c CMD, +CMD, --cmd CMD) run shell commands in more
// ways than :!cmd (which runExecOptions follows by its prefix): the
// functions system(), systemlist(), job_start() and term_start(), :read
// !cmd and :write !cmd, a filter (:%!cmd), :terminal, and :execute, which
// runs an ex command put together at run time.

// vimLike names the programs that read ex commands in -c and +.
var vimLike = newSet("vim", "vi", "nvim", "view", "ex")

// vimCalls run their argument: a string is shell text, a list an argv.
var vimCalls = []string{"system", "systemlist", "job_start", "term_start", "jobstart", "termopen"}

var (
	// vimBang matches :!cmd, :r !cmd, :w !cmd and filters (:%!cmd,
	// :1,5!cmd), after a | or at the start; the command runs to the end.
	vimBang = lazyRegexp(`(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?(?:%|\d+(?:,\d+)?|\.(?:,\$)?)?\s*(?:r|re|rea|read|w|wr|wri|writ|write)?\s*!(.*)$`)
	// vimTerm matches :terminal CMD, with ++options before the command.
	vimTerm = lazyRegexp(`(?:^|\|)[\s:]*ter(?:m(?:i(?:n(?:a(?:l)?)?)?)?)?!?\s+(?:\+\+\S+\s+)*([^|\s].*)$`)
	// vimExecute matches :execute, whose command is built at run time.
	vimExecute = lazyRegexp(`(?:^|\|)[\s:]*exe(?:c(?:u(?:t(?:e)?)?)?)?\s`)
)

// vimInitVars hold ex commands vim (or vi, ex) runs at start-up, before
// any start-up file: `VIMINIT='call system("…")' vim`, or exported from a
// shell's rc file for the user's next vim, or the editor git starts (found
// by red-team round 55). Their values are judged as ex commands
// (vimInitCode), and one the classifier cannot follow is eval-exec
// (riskyEnv).
var vimInitVars = newSet("VIMINIT", "EXINIT")

// vimInitCode judges the values of the ex-command variables e sets, for u
// (nil for an assignment alone: what they run is judged all the same).
func (a *analyzer) vimInitCode(u *unit, env []envVar) {
	for _, e := range env {
		if !vimInitVars.has(e.name) || e.val.dyn {
			continue
		}
		if u == nil {
			u = &unit{kind: kCall, cwd: a.cwd, links: a.links}
		}
		a.vimEx(u, e.val)
	}
}

// vimExOpaque reports whether ex command text runs a command the
// classifier cannot follow: :execute, or one of vimCalls given an
// expression.
func vimExOpaque(text string) bool {
	if vimExecute().MatchString(text) {
		return true
	}
	for _, name := range vimCalls {
		for _, c := range callArgs(text, name) {
			if c.call && (len(c.lits) == 0 || c.dyn) {
				return true
			}
		}
	}
	return false
}

// vimEx classifies what the ex command text of f runs.
func (a *analyzer) vimEx(u *unit, f field) {
	a.vimSource(u, f) // :source x.vim the line wrote (round 54)
	text := f.val
	opaque := vimExOpaque(text)
	for _, name := range vimCalls {
		for _, c := range callArgs(text, name) {
			if !c.call || len(c.lits) == 0 || c.dyn {
				continue // system(g:cmd), system("rm " . x): vimExOpaque
			}
			words := make([]field, len(c.lits))
			for i, l := range c.lits {
				words[i] = field{val: l, quoted: true}
			}
			a.argvOrShell(u, name, words)
		}
	}
	for _, re := range []func() *regexp.Regexp{vimBang, vimTerm} {
		if m := re().FindStringSubmatch(text); m != nil && strings.TrimSpace(m[1]) != "" {
			a.shellString(u, field{val: m[1], dyn: f.dyn})
		}
	}
	for _, cmd := range vimBangs(text) {
		a.shellString(u, field{val: cmd, dyn: f.dyn})
	}
	for _, m := range vimPrg().FindAllStringSubmatch(text, -1) {
		a.shellString(u, field{val: vimSetValue(m[1]), dyn: f.dyn}) // :make and :grep run it
	}
	if a.depth < maxDepth {
		for _, c := range callArgs(text, "execute") {
			for _, l := range c.lits { // execute("!cmd"): ex commands
				a.depth++
				a.vimEx(u, field{val: l, dyn: f.dyn})
				a.depth--
			}
		}
	}
	if opaque {
		if u.code == nil {
			u.code = &codeFacts{}
		}
		u.code.dynamic = true
	}
}

var (
	// vimExLead matches what may stand before an ex command and leave the
	// rest a command: ranges, :, the modifiers, and the commands that run
	// the command after them (:g/pat/, :windo, :autocmd EVENT PAT). Found
	// by red-team round 56: vimBang knew only a few of them.
	vimExLead = lazyRegexp(`^(?:[\s:%$.,;+\-\d]|'[a-z<>]|sil(?:ent)?!?|noa(?:utocmd)?|keep(?:alt|jumps|marks|patterns)|lockm(?:arks)?|vert(?:ical)?|to(?:pleft)?|bo(?:tright)?|abo(?:veleft)?|bel(?:owright)?|hid(?:e)?|uns(?:ilent)?|(?:win|buf|tab|arg|c|l|cf|lf)do|g(?:lobal)?!?/(?:\\.|[^/])*/|v(?:global)?/(?:\\.|[^/])*/|au(?:tocmd)?!?\s+\S+\s+\S+|exe(?:cute)?\s+["'])*`)
	// vimBangCmd matches an ex command that runs the rest of the line in a
	// shell: !cmd, :read !cmd, :write !cmd.
	vimBangCmd = lazyRegexp(`^(?:(?:r|re|rea|read|w|wr|wri|writ|write)!?\s*)?!(.+)$`)
	// vimPrg matches a setting of the program :make or :grep runs.
	vimPrg = lazyRegexp(`\bse?t?(?:l(?:ocal)?)?\s+(?:makeprg|mp|grepprg|gp)=((?:\\.|\S)+)`)
)

// vimBangs returns the shell commands of the ex commands in text, each
// command (after a |) stripped of what may lead it (vimExLead).
func vimBangs(text string) []string {
	var out []string
	for start := 0; start <= len(text); {
		lead := vimExLead().FindString(text[start:])
		if m := vimBangCmd().FindStringSubmatch(text[start+len(lead):]); m != nil && strings.TrimSpace(m[1]) != "" {
			out = append(out, m[1]) // the rest of the line, | included
			break
		}
		next := strings.IndexByte(text[start:], '|')
		if next < 0 {
			break
		}
		start += next + 1
	}
	return out
}

// vimSetValue is a :set value as the program it names: \ escapes a space.
func vimSetValue(v string) string {
	return strings.ReplaceAll(strings.ReplaceAll(v, `\ `, " "), `\\`, `\`)
}
