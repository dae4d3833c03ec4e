package classify

import "strings"

// Some values are a part of a text the line wrote, not the text itself:
// BASH_REMATCH after [[ 'lit' =~ re ]] (any substring of the left side)
// and OPTARG after getopts (the rest of a bundled word, -ab: b, or one
// option letter). A part may be a name the whole is not: the part b of
// the name ab, whose value x[$(…)] arithmetic evaluates. So such a value
// keeps the whole text and every name a substring of it is (partTexts).

// maxPartBytes bounds the bytes of the names partTexts lists for one
// text: a name run of n bytes has about n²/2 substrings. Past it the text
// becomes maybeMany, which escalates arithmetic or a name use.
const maxPartBytes = 1 << 14

// partTexts returns texts with, for each, every name a part of it may be
// (subNames). A text whose part may hold a substitution the whole does
// not run (hidesSubst) adds maybeMany too, which escalates its use.
func partTexts(texts []string) []string {
	out := append([]string(nil), texts...)
	for _, t := range texts {
		if hidesSubst(t) {
			out = append(out, maybeMany)
		}
		names, ok := subNames(t)
		if !ok {
			out = append(out, maybeMany)
			continue
		}
		out = append(out, names...)
	}
	return out
}

// hidesSubst reports whether a part of text may be a substitution the
// whole does not run: one the whole quotes or escapes ($(echo '$(CMD)')
// holds $(CMD)), or $( cut from an arithmetic $(( or $[ (a part of
// $((a)) is $((a), which runs a). Without those, a part cut from the
// whole ends at a ) or ` the whole's substitution ends at too, and a
// scan of the whole judges every substitution a part can hold.
func hidesSubst(text string) bool {
	if !strings.ContainsAny(text, "$`") {
		return false
	}
	return strings.ContainsAny(text, `'"\`) || strings.Contains(text, "((") || strings.Contains(text, "$[")
}

// subNames returns every name a substring of text is: each substring of a
// run of name bytes that starts with a letter or _. A name that ends
// where the run does is listed with the subscript after it too (ab[1]:
// b and b[1]), which selects the element arithmetic evaluates. ok is
// false past maxPartBytes.
func subNames(text string) (names []string, ok bool) {
	size := 0
	for i := 0; i < len(text); {
		if !isNameByte(text[i]) {
			i++
			continue
		}
		end := i
		for end < len(text) && isNameByte(text[end]) {
			end++
		}
		sub := ""
		if k := closingBracket(text, end); k > end {
			sub = text[end : k+1]
		}
		for s := i; s < end; s++ {
			if isDigit(text[s]) {
				continue // 1ab: ab and b are names, 1a is not
			}
			for e := s + 1; e <= end; e++ {
				n := text[s:e]
				if e == end && sub != "" {
					n += " " + n + sub // b, and b[1] when the part goes on
				}
				if size += len(n); size > maxPartBytes {
					return nil, false
				}
				names = append(names, n)
			}
		}
		i = end
	}
	return names, true
}
