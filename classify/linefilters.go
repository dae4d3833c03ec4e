package classify

import (
	"slices"
	"strings"
)

// Line filters: programs that print some of the lines they read, each
// unchanged, perhaps in another order (head, sort, grep, …). What they
// print from a known text is judged where it lands (… | head -n1 >>
// ~/.bashrc, … | sort | sh): a single line exactly (the filter prints it
// or nothing), several as each line alone and all of them in their order
// (stream.lines). Only the options that keep lines whole count: with any
// other (head -c, grep -o, cut, tac -s, uniq -c …) the output is only
// known at run time, as before.

// lineFilter is the options of one filter that keep its lines whole.
type lineFilter struct {
	flags    string   // short options without a value
	vals     string   // short options with a value
	long     []string // long options without a value
	longVals []string // long options with a value (--opt=V or --opt V)
	numeric  bool     // -NUM is a count (head -5)
	pattern  bool     // the first operand is a pattern unless -e/-f give one (grep)
}

var lineFilters = map[string]lineFilter{
	"head": {flags: "qv", vals: "n", long: []string{"--quiet", "--silent", "--verbose"},
		longVals: []string{"--lines"}, numeric: true},
	"tail": {flags: "qvfFr", vals: "ns", long: []string{"--quiet", "--silent", "--verbose", "--follow", "--retry"},
		longVals: []string{"--lines", "--sleep-interval", "--pid", "--max-unchanged-stats"}, numeric: true},
	"sort": {flags: "bdfgiMhnRrsucCV", vals: "ktST",
		long: []string{"--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort",
			"--ignore-nonprinting", "--month-sort", "--human-numeric-sort", "--numeric-sort", "--random-sort",
			"--reverse", "--version-sort", "--stable", "--unique", "--check"},
		longVals: []string{"--key", "--field-separator", "--buffer-size", "--temporary-directory", "--sort",
			"--parallel", "--random-source", "--batch-size"}},
	"uniq": {flags: "iudD", vals: "fsw",
		long:     []string{"--ignore-case", "--unique", "--repeated", "--all-repeated"},
		longVals: []string{"--skip-fields", "--skip-chars", "--check-chars"}},
	"tac":  {},
	"shuf": {vals: "n", longVals: []string{"--head-count", "--random-source"}},
	"grep": {flags: "iyvxwEFGPsqaIUhcLl", vals: "efmABC",
		long: []string{"--ignore-case", "--no-ignore-case", "--invert-match", "--line-regexp", "--word-regexp",
			"--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--no-messages", "--quiet",
			"--silent", "--text", "--binary", "--no-filename", "--count", "--files-with-matches",
			"--files-without-match", "--line-buffered"},
		longVals: []string{"--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context",
			"--color", "--colour"},
		pattern: true},
	"sed": {flags: "nErus", long: []string{"--quiet", "--silent", "--regexp-extended", "--posix", "--unbuffered",
		"--separate", "--debug", "--sandbox"}, longVals: []string{"--expression"}, vals: "e"},
}

// isLineFilter reports whether name is one of lineFilters.
func isLineFilter(name string) bool {
	_, ok := lineFilters[name]
	return ok
}

// lineSedScript matches the sed scripts that only print, delete or quit on
// whole lines: an address or range, then p, d, q or Q.
var lineSedScript = lazyRegexp(`^\s*(?:(?:[0-9]+|\$|/[^/\\\n]*/)(?:\s*,\s*(?:[+~]?[0-9]+|\$|/[^/\\\n]*/))?)?\s*!?\s*[pdqQ]\s*$`)

// lineFilterInput returns what the line filter u reads, where it prints
// only whole lines of it (options that keep lines whole): its standard
// input, or files the line wrote with known text (printf -- '-delete\n' >
// opts; find ~ $(head -1 opts): found by red-team round 49).
func (a *analyzer) lineFilterInput(u *unit) (stream, bool) {
	ops, ok := lineFilterOperands(u)
	if !ok {
		return stream{}, false
	}
	if !slices.ContainsFunc(ops, func(f field) bool { return f.dyn || !stdinName(f.val) }) {
		return u.in, true
	}
	var sb strings.Builder
	for _, f := range ops {
		s, ok := a.operandStream(u, f, true)
		if !ok || !s.textKnown {
			return stream{}, false
		}
		sb.WriteString(s.text)
	}
	return literal(sb.String()), true
}

// lineFilterOperands returns the file operands of the line filter u, or
// false where u is not one or has an option that does not keep lines
// whole.
func lineFilterOperands(u *unit) ([]field, bool) {
	spec, ok := lineFilters[u.name]
	if !ok || u.dynName {
		return nil, false
	}
	ops, opts, ok := spec.parse(u.args)
	if !ok {
		return nil, false
	}
	switch {
	case u.name == "sed":
		var script []string
		for _, o := range opts {
			if o.name == "-e" || o.name == "--expression" {
				script = append(script, o.val)
			}
		}
		if len(script) == 0 && len(ops) > 0 {
			script, ops = []string{ops[0].val}, ops[1:]
		}
		if len(script) != 1 || !lineSedScript().MatchString(script[0]) {
			return nil, false
		}
	case spec.pattern && !slices.ContainsFunc(opts, func(o parsedOpt) bool {
		return o.name == "-e" || o.name == "-f" || o.name == "--regexp" || o.name == "--file"
	}):
		if len(ops) == 0 {
			return nil, false
		}
		ops = ops[1:]
	}
	// uniq's second operand is its output file.
	if u.name == "uniq" && len(ops) > 1 {
		return nil, false
	}
	return ops, true
}

// stdinName reports whether a file operand names the standard input.
func stdinName(p string) bool {
	return p == "-" || p == "/dev/stdin" || p == "/proc/self/fd/0" || p == "/dev/fd/0"
}

// parsedOpt is one option a lineFilter parsed, with its value if it takes
// one.
type parsedOpt struct{ name, val string }

// parse splits args into operands and options; ok is false where an
// option is not one the filter keeps lines whole with, or is only known at
// run time.
func (l lineFilter) parse(args []field) (ops []field, opts []parsedOpt, ok bool) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		switch {
		case v == "--":
			return append(ops, args[i+1:]...), opts, !slices.ContainsFunc(args[i+1:], func(f field) bool { return f.dyn })
		case f.dyn && strings.HasPrefix(v, "-") || f.dynPrefix:
			return nil, nil, false
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			switch {
			case slices.Contains(l.long, name) && !hasVal || name == "--all-repeated" && slices.Contains(l.long, name):
				opts = append(opts, parsedOpt{name: name})
			case slices.Contains(l.longVals, name):
				if !hasVal {
					if i+1 >= len(args) || args[i+1].dyn {
						return nil, nil, false
					}
					i++
					val = args[i].val
				}
				opts = append(opts, parsedOpt{name: name, val: val})
			default:
				return nil, nil, false
			}
		case len(v) > 1 && v[0] == '-':
			if l.numeric && strings.Trim(v[1:], "0123456789") == "" {
				continue
			}
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(l.flags, c) >= 0:
					opts = append(opts, parsedOpt{name: "-" + string(c)})
				case strings.IndexByte(l.vals, c) >= 0:
					val := v[j+1:]
					if val == "" {
						if i+1 >= len(args) || args[i+1].dyn {
							return nil, nil, false
						}
						i++
						val = args[i].val
					}
					opts = append(opts, parsedOpt{name: "-" + string(c), val: val})
					j = len(v)
				default:
					return nil, nil, false
				}
			}
		default:
			ops = append(ops, f)
		}
	}
	return ops, opts, true
}

// lineFilterOut is what a line filter prints from in: a single known line
// as it is (printed or not), several known lines as lines, anything else
// only known at run time; where the text came from stays.
func lineFilterOut(in stream) stream {
	out := stream{traits: in.traits}
	switch {
	case in.textKnown && !strings.Contains(strings.TrimSuffix(in.text, "\n"), "\n"):
		out.text, out.textKnown = in.text, true
	case in.textKnown:
		out.lines = in.text
		out.traits |= trUnknown
	case in.lines != "":
		out.lines = in.lines
		out.traits |= trUnknown
	default:
		out.traits |= trUnknown
	}
	return out
}

// runTexts walks as shell code, with run, what a shell reading s runs: the
// text where it is known; for lines (stream.lines) each line alone and all
// of them in their order.
func runTexts(s stream, run func(string, *stream) stream) {
	if s.textKnown {
		run(s.text, nil)
		return
	}
	if s.lines == "" {
		return
	}
	run(s.lines, nil)
	ls := strings.Split(strings.TrimSuffix(s.lines, "\n"), "\n")
	if len(ls) < 2 {
		return
	}
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			run(l+"\n", nil)
		}
	}
}
