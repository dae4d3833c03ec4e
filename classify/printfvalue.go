package classify

import (
	"slices"
	"strings"
)

// printfArgs splits printf's words as bash's option parser does: -v NAME
// or -vNAME (the last one counts), then an optional --, then FORMAT and
// its ARGs. ok is false without -v, with an option printf refuses (it then
// sets nothing), or without a FORMAT.
func printfArgs(args []field) (name field, ops []field, ok bool) {
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		if args[i].dyn || len(v) < 2 || v[0] != '-' {
			break
		}
		switch {
		case v == "--":
			i++
			return name, args[i:], ok && i < len(args)
		case v == "-v" && i+1 < len(args):
			i++
			name, ok = args[i], true
		case strings.HasPrefix(v, "-v") && len(v) > 2:
			name, ok = field{val: v[2:], dyn: args[i].dyn}, true
		default:
			return field{}, nil, false // -x: "invalid option", nothing is set
		}
	}
	return name, args[i:], ok && i < len(args)
}

// printfValue returns the variable printf -v NAME FORMAT [ARG…] sets and
// the value it stores: exact when every word is known and printfFormat
// computes the output byte for byte (widths, precisions, %b's own escape
// rules, \c). Otherwise the value is only known at run time; its possible
// value is printfFormat's approximation with each run-time word empty,
// so arithmetic on the variable still judges a substitution a literal
// carries (printf -v i '%5d' 'x[$(…)]'; $((i)) runs it). A FORMAT with
// a run-time part may be any ("%${W}s" is %s with W empty): the possible
// value holds every literal ARG too (see printfPossible).
func printfValue(u *unit) (field, varVal, bool) {
	if u.name != "printf" {
		return field{}, varVal{}, false
	}
	name, ops, ok := printfArgs(u.args)
	if !ok {
		return field{}, varVal{}, false
	}
	text, exact := printfPossible(ops)
	if exact {
		return name, varVal{val: text, known: true}, true
	}
	if text == "" {
		return name, varVal{}, true
	}
	return name, varVal{dflt: text, hasDflt: true}, true
}

// printfPossible returns what printf FORMAT [ARG…] prints: exact when
// every word is known and printfFormat computes it byte for byte; else
// a possible output, printfFormat's approximation with each run-time
// word's possible value, followed by every literal ARG where FORMAT may
// not use them all as read (a run-time FORMAT, which may be %s, or one
// printfFormat reuses no more than 64 times).
func printfPossible(ops []field) (string, bool) {
	lit := make([]string, len(ops))
	known := true
	for i, f := range ops {
		known = known && !f.dyn
		lit[i] = f.possible() // a run-time part taken as empty or its default
	}
	text, exact := printfFormat(lit[0], lit[1:])
	if known && exact {
		return text, true
	}
	if ops[0].dyn || len(ops) > 64 {
		var args []string
		for _, f := range ops[1:] {
			if !f.dyn {
				args = append(args, f.val)
			}
		}
		text = strings.TrimSpace(text + " " + strings.Join(args, " "))
	}
	return text, false
}

// printfMaybe returns the texts printf -v may store that the line wrote
// in its run-time ARGs (printf -v v %s "${BASH_REMATCH[1]}"; see
// fieldTexts): each printed in place by a known FORMAT, alone and with
// its parts (a precision cuts it). An escape a %b may expand, or a
// run-time FORMAT, may build any text: maybeMany.
func (a *analyzer) printfMaybe(u *unit) []string {
	_, ops, ok := printfArgs(u.args)
	if !ok {
		return nil
	}
	lit := make([]string, len(ops))
	for i, f := range ops {
		lit[i] = f.possible()
	}
	var out []string
	for i, f := range ops {
		if !f.dyn {
			continue
		}
		all := a.fieldTexts(f)
		texts := plainTexts(all)
		if len(texts) == 0 {
			continue
		}
		if i == 0 || len(texts) < len(all) || slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, `\`) }) {
			out = append(out, maybeMany)
		}
		if i == 0 {
			continue
		}
		out = append(append(out, texts...), partTexts(texts)...)
		for _, t := range texts {
			lit[i] = t
			s, _ := printfFormat(lit[0], lit[1:])
			out = append(out, s)
		}
		lit[i] = f.possible()
	}
	return joinMaybe(varVal{maybe: out})
}
