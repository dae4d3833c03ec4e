package classify

import "strings"

// Placeholder substitution: programs that paste their arguments into a
// command (find -exec … {}, xargs -I{}, parallel, hyperfine -L x … {x})
// are classified with the command as it runs, the placeholder replaced.
// A line of a few dozen kilobytes may ask for thousands of copies of a
// long word, so every substitution is sized before it is built and charged
// to the line's values (maxLineValues).

// paste returns s with every tok replaced by with. A result past maxValue,
// past the line's budget of values or its deadline escalates the line and
// is not built (ok false): the caller stops, and a line given up on is
// never allowed.
func (a *analyzer) paste(s, tok, with string) (string, bool) {
	if !strings.Contains(s, tok) {
		return s, true
	}
	size := pastedSize(s, tok, with)
	if !a.chargePaste(size, size) {
		return "", false
	}
	return strings.ReplaceAll(s, tok, with), true
}

// chargePaste charges total bytes of pasted values, the largest of them
// largest, to the line's values and reports whether they may be built:
// not when one is past maxValue (the line is escalated), nor past the
// line's budget or deadline.
func (a *analyzer) chargePaste(total, largest int) bool {
	if largest > maxValue {
		a.spendValue(total)
		a.limit("values too large to classify")
		return false
	}
	return a.spendValue(total) && !a.overTime()
}

// pastedSize returns the length of s with every tok replaced by with.
func pastedSize(s, tok, with string) int {
	return len(s) + strings.Count(s, tok)*(len(with)-len(tok))
}

// findPasteSize returns the bytes expandFindRoots builds for the words of a
// find -exec command (each word holding {} once per starting point) and the
// longest of them, without building them: counted per word and per root,
// not per pair, as both may number in the thousands.
func findPasteSize(roots, words []field) (total, largest int) {
	rootBytes, longest := 0, 0
	for _, r := range roots {
		rootBytes += len(r.val)
		longest = max(longest, len(r.val))
	}
	for _, f := range words {
		n := strings.Count(f.val, "{}")
		if n == 0 {
			continue
		}
		total += len(roots)*len(f.val) + n*(rootBytes-2*len(roots))
		largest = max(largest, len(f.val)+n*(longest-2))
	}
	return total, largest
}

// checkFindPaste charges what find's -exec words expand to (expandFindRoots
// builds them again for each rule that looks at them, so they are bounded
// once here) and reports whether the command can be classified.
func (a *analyzer) checkFindPaste(roots, words []field) bool {
	return a.chargePaste(findPasteSize(roots, words))
}
