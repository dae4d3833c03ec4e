package classify

import "strings"

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
// the value it stores. The value is exact when FORMAT is plain text (no
// escape) whose only conversions are %s and every ARG is known: FORMAT is
// reused until the arguments are used up. Any other form (%b, %5s, %-s,
// %*s, %d, '\170', '%s\n') stores a value only known at run time whose
// possible value is printf's output with every flag, width and precision
// ignored (printfStream): each ARG and the format's escaped characters
// are in it, so arithmetic on the variable still judges a substitution a
// literal carries (printf -v i '%5s' 'x[$(…)]'; $((i)) runs it).
func printfValue(u *unit) (field, varVal, bool) {
	if u.name != "printf" {
		return field{}, varVal{}, false
	}
	name, ops, ok := printfArgs(u.args)
	if !ok {
		return field{}, varVal{}, false
	}
	if s, exact := printfPlain(ops); exact {
		return name, varVal{val: s, known: true}, true
	}
	lit := make([]field, len(ops))
	for i, f := range ops {
		if !f.dyn {
			lit[i].val = f.val // a run-time part is no possible code of the line's
		}
	}
	out := printfStream(&unit{name: "printf", args: append([]field{{val: "--"}}, lit...)})
	text := out.text
	if len(ops) > 64 {
		// printfStream reuses FORMAT at most 64 times: keep every ARG
		for _, f := range lit[1:] {
			text += " " + f.val
		}
	}
	if text == "" {
		return name, varVal{}, true
	}
	return name, varVal{dflt: text, hasDflt: true}, true
}

// printfPlain returns printf's output for a FORMAT of plain text whose
// only conversions are %s, with known ARGs; ok is false for anything else.
func printfPlain(ops []field) (string, bool) {
	f, rest := ops[0], ops[1:]
	for _, g := range ops {
		if g.dyn {
			return "", false
		}
	}
	parts := strings.Split(f.val, "%s")
	if strings.ContainsAny(strings.Join(parts, ""), `%\`) {
		return "", false
	}
	var b strings.Builder
	for first := true; first || len(rest) > 0 && len(parts) > 1; first = false {
		b.WriteString(parts[0])
		for _, p := range parts[1:] {
			if len(rest) > 0 {
				b.WriteString(rest[0].val)
				rest = rest[1:]
			}
			b.WriteString(p)
		}
	}
	return b.String(), true
}
