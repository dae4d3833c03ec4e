// Package termsafe names the characters that must not reach an operator's
// terminal as they are, in text agentbox did not write itself (a
// manifest's strings, an agent's host names, audit log fields): whatever
// could drive the terminal or reorder what it shows. One list, so that
// what a manifest may not hold and what the CLI escapes cannot drift apart.
package termsafe

import "unicode"

// Range is a range of such characters and the form each is written in
// when escaped (a fmt verb taking the rune).
type Range struct {
	Lo, Hi rune
	Format string
}

// Ranges are the characters that never reach a terminal as they are.
var Ranges = []Range{
	{0x00, 0x1f, `\x%02x`},     // C0 controls
	{0x7f, 0x9f, `\x%02x`},     // DEL and C1 controls
	{0x061c, 0x061c, `\u%04x`}, // Arabic letter mark
	{0x200e, 0x200f, `\u%04x`}, // left-to-right and right-to-left marks
	{0x2028, 0x2029, `\u%04x`}, // line and paragraph separators
	{0x202a, 0x202e, `\u%04x`}, // bidirectional embeddings and overrides
	{0x2066, 0x2069, `\u%04x`}, // bidirectional isolates
}

// Find returns the range r is in, if any.
func Find(r rune) (Range, bool) {
	for _, e := range Ranges {
		if e.Lo <= r && r <= e.Hi {
			return e, true
		}
	}
	return Range{}, false
}

// IsControl reports whether r is one of Ranges.
func IsControl(r rune) bool {
	_, ok := Find(r)
	return ok
}

// Invisible reports whether r shows as nothing, or as a plain space:
// format characters (zero-width spaces and joiners, the byte order mark,
// the soft hyphen) and the spaces other than U+0020. A name or path that
// holds one reads as another, so the CLI escapes them in text it did not
// write and a manifest may not hold them outside free text.
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zs, r) && r != ' '
}

// Escaped reports whether the CLI writes r escaped in text it did not
// write: a control of Ranges, or an invisible character.
func Escaped(r rune) bool {
	return IsControl(r) || Invisible(r)
}
