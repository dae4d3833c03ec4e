package classify

import (
	"strings"
)

// Programs that print text their arguments spell out, beside echo and
// printf: date +FORMAT, expr STRING, seq -f FORMAT, find -printf FORMAT
// (and -fprintf FILE FORMAT), and the strings of code (python3 -c
// 'print("…")', awk, jq '"…"'). What they print lands in rc files or
// shells like echo's (date '+rm -rf ~/.ssh' >> ~/.bashrc). Placeholders
// (%Y, %p) are taken as empty: what they stand for is dates, numbers and
// file names.

// printedText returns what u prints from the text of its arguments, where
// it is such a program; ok is false otherwise.
func printedText(u *unit) (stream, bool) {
	switch u.name {
	case "date":
		for _, f := range u.operands() {
			if t, ok := strings.CutPrefix(f.val, "+"); ok && !f.dyn {
				return printed(dateFormat().ReplaceAllStringFunc(t, dateDirective)+"\n", dateFormat().MatchString(strings.NewReplacer("%%", "", "%n", "", "%t", "").Replace(t))), true
			}
		}
	case "expr":
		ops := u.args
		if len(ops) > 0 && ops[0].val == "--" {
			ops = ops[1:]
		}
		if len(ops) == 1 && !ops[0].dyn {
			return literal(ops[0].val + "\n"), true
		}
		// expr A '|' B prints A or B: each may be what it prints.
		var lines []string
		for _, f := range ops {
			if !f.dyn && !exprOperators.has(f.val) {
				lines = append(lines, f.val)
			}
		}
		if len(lines) > 0 {
			return stream{traits: trUnknown, lines: strings.Join(lines, "\n") + "\n"}, true
		}
	case "seq":
		if f := optValue(u, "f", "--format"); f != nil && !f.dyn {
			t, _ := printfFormat(f.val, []string{"1"})
			return printed(t+"\n", true), true
		}
	case "find":
		if t, _, ok := findPrintf(u, "-printf", 0); ok {
			return printed(t, true), true
		}
	case "jq", "gojq", "jaq":
		if ops := operandsSkipping(u.args, "fL", "--arg", "--argjson", "--slurpfile", "--rawfile", "--indent", "--from-file"); len(ops) > 0 && !ops[0].dyn {
			return codeLines(ops[0].val), true
		}
	}
	return stream{}, false
}

// printed is the output text of a format: exactly text, or, where its
// placeholders print what only the run knows (dates, names, numbers),
// lines made of it (judged as they may run; the output stays a run-time
// one: date +%s | sh is still eval-exec).
func printed(text string, placeholders bool) stream {
	if !placeholders {
		return literal(text)
	}
	return stream{traits: trUnknown, lines: text}
}

// codeLines is the output of code whose strings it may print.
func codeLines(code string) stream {
	s := stream{traits: trUnknown}
	if strs := codeStrings(code); len(strs) > 0 {
		s.lines = strings.Join(strs, "\n") + "\n"
	}
	return s
}

// exprOperators are expr's operators.
var exprOperators = newSet("|", "&", "<", "<=", "=", "==", "!=", ">=", ">", "+", "-", "*", "/", "%", ":", "(", ")",
	"match", "substr", "index", "length")

// dateFormat matches date's conversions (%Y, %-d, %_H, %:z, %%).
var dateFormat = lazyRegexp(`%[-_0^#]*[0-9]*:*[a-zA-Z%+]`)

// dateDirective is what date prints for a conversion: newline and tab for
// %n and %t, % for %%, and nothing here for dates and names.
func dateDirective(m string) string {
	switch m[len(m)-1] {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case '%':
		return "%"
	}
	return ""
}

// findDirectives matches find -printf's directives (%p, %-10f, %TY, %%).
var findDirectives = lazyRegexp(`%[-+ #0-9.]*(?:[ACT][a-zA-Z@+]|[a-zA-Z%])`)

// findPrintf returns the text of find's action opt (-printf FORMAT, or
// -fprintf FILE FORMAT with skip 1), its escapes expanded and directives
// taken as empty, and the word after opt (FILE).
func findPrintf(u *unit, opt string, skip int) (string, field, bool) {
	for i, f := range u.args {
		if f.val != opt || i+1+skip >= len(u.args) || u.args[i+1+skip].dyn {
			continue
		}
		format := findDirectives().ReplaceAllStringFunc(u.args[i+1+skip].val, func(m string) string {
			if m == "%%" {
				return "%%"
			}
			return ""
		})
		t, _ := printfFormat(format, nil)
		return t, u.args[i+1], true
	}
	return "", field{}, false
}
